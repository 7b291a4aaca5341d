//! Transports: stdio (an agent launches `rudder mcp …`) and streamable HTTP on
//! loopback (an agent attaches to a running `rudder fuzz … --mcp-http`).

use super::RudderServer;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use std::net::SocketAddr;
use std::sync::Arc;

/// The default HTTP address: loopback, port 7878.
pub const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:7878";

/// Serves MCP over stdin/stdout until the client disconnects.
pub async fn serve_stdio(server: RudderServer) -> std::io::Result<()> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(())
}

/// Options of the HTTP transport.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Required (as `Authorization: Bearer …`) when set; mandatory for
    /// non-loopback binds.
    pub token: Option<String>,
    pub allow_remote: bool,
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
    #[error("binding {0}: {1}")]
    Bind(SocketAddr, std::io::Error),
}

impl HttpOptions {
    /// Refuses non-loopback binds without `allow_remote` and a token.
    pub fn validate(&self) -> Result<(), HttpError> {
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
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let token = opts.token.clone();
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let token = token.clone();
                async move { check_request(token.as_deref(), req, next).await }
            },
        ));
    let handle = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!("MCP HTTP server: {e}");
        }
    });
    Ok((bound, handle))
}

/// Bearer token and Origin checks (DNS-rebinding protection: a browser page
/// on another origin cannot drive the campaign).
async fn check_request(
    token: Option<&str>,
    req: Request,
    next: Next,
) -> Result<Response, StatusCode> {
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
    Ok(next.run(req).await)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
