//! Transports: stdio (an agent launches `rudder mcp …`) and streamable HTTP on
//! loopback (an agent attaches to a running `rudder fuzz … --mcp-http`).

use super::RudderServer;
use super::screen::{self, MAX_MESSAGE_BYTES};
use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService,
    session::local::{LocalSessionManager, SessionConfig},
};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The default HTTP address: loopback, port 7878.
pub const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:7878";
/// Open HTTP sessions at most (`--mcp-max-sessions`); a new session beyond
/// it is refused with 503 until one closes or expires.
pub const DEFAULT_MAX_SESSIONS: usize = 64;
/// An HTTP session idle this long is closed (`--mcp-session-idle SECS`).
pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(300);

/// Serves MCP over stdin/stdout until the client disconnects.
pub async fn serve_stdio(server: RudderServer) -> std::io::Result<()> {
    serve_lines(server, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serves MCP over newline-delimited JSON-RPC on `input`/`output` (stdio,
/// or anything else in tests). Every incoming line is screened first
/// ([`screen`]): what rmcp would drop silently is answered with a JSON-RPC
/// error here, and lines past [`MAX_MESSAGE_BYTES`] are never buffered whole.
pub async fn serve_lines<R, W>(server: RudderServer, input: R, output: W) -> std::io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (ours, theirs) = tokio::io::duplex(1 << 16);
    let (our_read, mut our_write) = tokio::io::split(ours);
    let (out_tx, mut out_rx) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
    // One writer owns the output, so rmcp's replies and ours never interleave.
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = out_rx.recv().await {
            if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    let replies = out_tx.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(our_read);
        let mut buf = Vec::new();
        while matches!(lines.read_until(b'\n', &mut buf).await, Ok(n) if n > 0) {
            if replies.send(std::mem::take(&mut buf)).await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        loop {
            let line = match read_bounded_line(&mut input).await {
                Ok(Some(l)) => l,
                Ok(None) | Err(_) => break,
            };
            let verdict = match &line {
                BoundedLine::Whole(l) if l.iter().all(u8::is_ascii_whitespace) => continue,
                BoundedLine::Whole(l) => screen::screen(l),
                BoundedLine::TooLong { head, len } => Err(screen::error_response(
                    screen::scan_id(head),
                    screen::INVALID_REQUEST,
                    &format!(
                        "message of {len} bytes exceeds the limit of {MAX_MESSAGE_BYTES} bytes"
                    ),
                )),
            };
            match (verdict, line) {
                (Ok(()), BoundedLine::Whole(mut l)) => {
                    l.push(b'\n');
                    if our_write.write_all(&l).await.is_err() {
                        break;
                    }
                }
                (Err(reply), _) => {
                    let mut bytes = reply.to_string().into_bytes();
                    bytes.push(b'\n');
                    if out_tx.send(bytes).await.is_err() {
                        break;
                    }
                }
                (Ok(()), BoundedLine::TooLong { .. }) => unreachable!("too long is an error"),
            }
        }
        let _ = our_write.shutdown().await;
    });
    let running = server
        .serve(tokio::io::split(theirs))
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let r = running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| std::io::Error::other(e.to_string()));
    writer.abort();
    r
}

enum BoundedLine {
    Whole(Vec<u8>),
    /// A line over the limit: its first bytes (to find the id) and length.
    TooLong {
        head: Vec<u8>,
        len: usize,
    },
}

/// One line without its `\n`, buffering at most [`MAX_MESSAGE_BYTES`].
async fn read_bounded_line<R: AsyncRead + Unpin>(
    r: &mut BufReader<R>,
) -> std::io::Result<Option<BoundedLine>> {
    let mut line = Vec::new();
    let mut len = 0usize;
    let mut any = false;
    loop {
        let chunk = r.fill_buf().await?;
        if chunk.is_empty() {
            break;
        }
        any = true;
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(p) => (p, true),
            None => (chunk.len(), false),
        };
        if line.len() < MAX_MESSAGE_BYTES + 1 {
            let room = MAX_MESSAGE_BYTES + 1 - line.len();
            line.extend_from_slice(&chunk[..take.min(room)]);
        }
        len += take;
        r.consume(if done { take + 1 } else { take });
        if done {
            break;
        }
    }
    if !any {
        return Ok(None);
    }
    Ok(Some(if len > MAX_MESSAGE_BYTES {
        line.truncate(64 << 10);
        BoundedLine::TooLong { head: line, len }
    } else {
        BoundedLine::Whole(line)
    }))
}

/// Options of the HTTP transport.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Required (as `Authorization: Bearer …`) when set; mandatory for
    /// non-loopback binds.
    pub token: Option<String>,
    pub allow_remote: bool,
    /// Open sessions at most.
    pub max_sessions: usize,
    /// Idle sessions are closed after this long.
    pub session_idle: Duration,
}

impl HttpOptions {
    /// Loopback defaults at `addr`.
    pub fn loopback(addr: SocketAddr) -> Self {
        HttpOptions {
            addr,
            token: None,
            allow_remote: false,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_idle: DEFAULT_SESSION_IDLE,
        }
    }
}

/// Why the HTTP server would not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "--mcp-http {0}: not a loopback address; pass --mcp-allow-remote with --mcp-token to expose the control plane"
    )]
    NotLoopback(SocketAddr),
    #[error("--mcp-allow-remote needs --mcp-token (a bearer token clients must send)")]
    NoToken,
    #[error("--mcp-token: {0}")]
    WeakToken(String),
    #[error("--mcp-max-sessions: must be at least 1")]
    NoSessions,
    #[error("binding {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
}

impl HttpOptions {
    /// Refuses non-loopback binds without `allow_remote` and a token.
    pub fn validate(&self) -> Result<(), HttpError> {
        if let Some(t) = &self.token {
            if t.trim().is_empty() {
                return Err(HttpError::WeakToken("must not be empty".into()));
            }
            if t.len() < 16 && !self.addr.ip().is_loopback() {
                return Err(HttpError::WeakToken(format!(
                    "{} characters is too short for a remote bind (at least 16)",
                    t.len()
                )));
            }
        }
        if self.max_sessions == 0 {
            return Err(HttpError::NoSessions);
        }
        if !self.addr.ip().is_loopback() {
            if !self.allow_remote {
                return Err(HttpError::NotLoopback(self.addr));
            }
            if self.token.is_none() {
                return Err(HttpError::NoToken);
            }
        }
        Ok(())
    }
}

/// Binds and serves `/mcp`; returns the bound address and the server task.
pub async fn serve_http(
    server: RudderServer,
    opts: HttpOptions,
) -> Result<(SocketAddr, tokio::task::JoinHandle<()>), HttpError> {
    opts.validate()?;
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|e| HttpError::Bind(opts.addr, e))?;
    let bound = listener
        .local_addr()
        .map_err(|e| HttpError::Bind(opts.addr, e))?;
    let port = bound.port();
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_origins([
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://[::1]:{port}"),
        ])
        .enforce_origin_validation();
    if opts.allow_remote {
        config = config.disable_allowed_hosts();
    }
    let mut manager = LocalSessionManager::default();
    let mut session_config = SessionConfig::default();
    session_config.keep_alive = Some(opts.session_idle);
    manager.session_config = session_config;
    let manager = Arc::new(manager);
    let service =
        StreamableHttpService::new(move || Ok(server.for_session()), manager.clone(), config);
    let token = opts.token.clone();
    let max_sessions = opts.max_sessions;
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let token = token.clone();
                let manager = manager.clone();
                async move {
                    match check_request(token.as_deref(), req).await {
                        Err(r) => r,
                        Ok(req) => {
                            let new_session = req.method() == Method::POST
                                && !req.headers().contains_key("mcp-session-id");
                            if new_session && manager.sessions.read().await.len() >= max_sessions {
                                return jsonrpc_error(
                                    StatusCode::SERVICE_UNAVAILABLE,
                                    None,
                                    screen::INVALID_REQUEST,
                                    &format!(
                                        "{max_sessions} MCP sessions are open (the limit); close one or wait for an idle one to expire"
                                    ),
                                );
                            }
                            // A session closed by DELETE: 200, the answer
                            // both official clients read as success (the
                            // Python SDK takes 202 for a failure).
                            let delete = req.method() == Method::DELETE;
                            let mut response = next.run(req).await;
                            if delete && response.status() == StatusCode::ACCEPTED {
                                *response.status_mut() = StatusCode::OK;
                            }
                            response
                        }
                    }
                }
            },
        ));
    let handle = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!("MCP HTTP server: {e}");
        }
    });
    Ok((bound, handle))
}

fn jsonrpc_error(
    status: StatusCode,
    id: Option<serde_json::Value>,
    code: i64,
    msg: &str,
) -> Response {
    let body = screen::error_response(id, code, msg).to_string();
    (status, [("content-type", "application/json")], body).into_response()
}

/// Bearer token and Origin checks (DNS-rebinding protection: a browser page
/// on another origin cannot drive the campaign), then the body: at most
/// [`MAX_MESSAGE_BYTES`], and JSON ([`screen`]), or a JSON-RPC error.
async fn check_request(token: Option<&str>, req: Request) -> Result<Request, Response> {
    authorize(token, &req).map_err(|s| s.into_response())?;
    if req.method() != Method::POST {
        return Ok(req);
    }
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_MESSAGE_BYTES)
        .await
        .map_err(|_| {
            jsonrpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                screen::INVALID_REQUEST,
                &format!("request body exceeds the limit of {MAX_MESSAGE_BYTES} bytes"),
            )
        })?;
    if let Err(reply) = screen::screen(&bytes) {
        let body = reply.to_string();
        return Err((
            StatusCode::BAD_REQUEST,
            [("content-type", "application/json")],
            body,
        )
            .into_response());
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

fn authorize(token: Option<&str>, req: &Request) -> Result<(), StatusCode> {
    if let Some(origin) = req.headers().get("origin") {
        let o = origin.to_str().unwrap_or("");
        let host = o
            .strip_prefix("http://")
            .or_else(|| o.strip_prefix("https://"))
            .unwrap_or("");
        let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
        if !matches!(host, "127.0.0.1" | "localhost" | "[::1]") && token.is_none() {
            return Err(StatusCode::FORBIDDEN);
        }
    }
    if let Some(t) = token {
        let ok = req
            .headers()
            .get("authorization")
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "))
            .is_some_and(|given| constant_time_eq(given.as_bytes(), t.as_bytes()));
        if !ok {
            return Err(StatusCode::UNAUTHORIZED);
        }
    }
    Ok(())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
