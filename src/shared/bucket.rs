//! [`Bucket`]: blocking reads and writes of the shared store, on one
//! thread's own runtime, over `object_store` (S3, a folder, or memory).

use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use thiserror::Error;

/// Why the shared store could not be used.
#[derive(Debug, Error)]
pub enum SharedError {
    /// A URL, node id or setting that cannot be used; names the field.
    #[error("{field}: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    /// The store did not answer (connection refused, DNS, timeout).
    #[error("{url}: unreachable: {message}")]
    Unreachable { url: String, message: String },
    /// The store answered but refused the credentials or the access.
    #[error(
        "{url}: access denied ({message}); credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN)"
    )]
    Denied { url: String, message: String },
    /// The store holds another campaign.
    #[error("{url} holds another campaign: {}", differs.join("; "))]
    OtherCampaign { url: String, differs: Vec<String> },
    /// Any other failure of a request.
    #[error("{url}: {message}")]
    Store { url: String, message: String },
}

impl SharedError {
    /// Whether the store itself is out of reach (a sync then waits and retries).
    pub fn is_unreachable(&self) -> bool {
        matches!(self, SharedError::Unreachable { .. })
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Backend {
    S3 { bucket: String, prefix: String },
    File(std::path::PathBuf),
    Memory(String),
}

/// Where a campaign is shared: `s3://bucket/prefix`, `file:///path` (a
/// folder every node sees), or `memory://name` (one process; tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedUrl {
    raw: String,
    backend: Backend,
}

impl std::fmt::Display for SharedUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.raw)
    }
}

impl SharedUrl {
    /// Parses `url`; the error names `field` (a flag or config key).
    pub fn parse(field: &'static str, url: &str) -> Result<SharedUrl, SharedError> {
        let bad = |message: String| SharedError::Invalid { field, message };
        let (scheme, rest) = url.split_once("://").ok_or_else(|| {
            bad(format!(
                "{url:?}: expected s3://BUCKET/PREFIX, file:///PATH or memory://NAME"
            ))
        })?;
        let backend = match scheme {
            "s3" => {
                let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
                let valid_bucket = (3..=63).contains(&bucket.len())
                    && bucket.bytes().all(|b| {
                        b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.'
                    });
                if !valid_bucket {
                    return Err(bad(format!(
                        "{url:?}: bucket name {bucket:?} is not valid (3-63 lowercase letters, digits, '-' and '.')"
                    )));
                }
                let prefix = prefix.trim_matches('/').to_string();
                if prefix.split('/').any(|s| s == "." || s == "..") {
                    return Err(bad(format!("{url:?}: the prefix may not hold . or ..")));
                }
                Backend::S3 {
                    bucket: bucket.to_string(),
                    prefix,
                }
            }
            "file" => {
                let path = std::path::PathBuf::from(rest);
                if !path.is_absolute() {
                    return Err(bad(format!(
                        "{url:?}: a file URL needs an absolute path (file:///shared/campaign)"
                    )));
                }
                Backend::File(path)
            }
            "memory" if !rest.is_empty() => Backend::Memory(rest.to_string()),
            _ => {
                return Err(bad(format!(
                    "{url:?}: unknown scheme {scheme:?}; expected s3://, file:// or memory://"
                )));
            }
        };
        Ok(SharedUrl {
            raw: url.to_string(),
            backend,
        })
    }

    fn open_store(&self) -> Result<Arc<dyn ObjectStore>, SharedError> {
        let store_err = |e: object_store::Error| SharedError::Store {
            url: self.raw.clone(),
            message: e.to_string(),
        };
        match &self.backend {
            Backend::S3 { bucket, prefix } => {
                use object_store::ClientConfigKey as C;
                use object_store::aws::AmazonS3ConfigKey as K;
                crate::net::tls();
                let mut b = object_store::aws::AmazonS3Builder::from_env().with_bucket_name(bucket);
                // A sync that cannot reach the store gives up quickly and
                // tries again at the next interval (nothing is lost meanwhile).
                if std::env::var_os("AWS_TIMEOUT").is_none() {
                    b = b.with_config(K::Client(C::Timeout), "10s");
                }
                if std::env::var_os("AWS_CONNECT_TIMEOUT").is_none() {
                    b = b.with_config(K::Client(C::ConnectTimeout), "3s");
                }
                if std::env::var_os("AWS_REGION").is_none()
                    && std::env::var_os("AWS_DEFAULT_REGION").is_none()
                {
                    b = b.with_region("us-east-1");
                }
                b = b.with_retry(object_store::RetryConfig {
                    max_retries: 2,
                    retry_timeout: Duration::from_secs(8),
                    ..Default::default()
                });
                let s3 = b.build().map_err(|e| SharedError::Invalid {
                    field: "shared",
                    message: format!("{}: {e}", self.raw),
                })?;
                Ok(if prefix.is_empty() {
                    Arc::new(s3)
                } else {
                    Arc::new(object_store::prefix::PrefixStore::new(
                        s3,
                        Key::from(prefix.as_str()),
                    ))
                })
            }
            Backend::File(path) => {
                std::fs::create_dir_all(path).map_err(|e| SharedError::Invalid {
                    field: "shared",
                    message: format!("{}: cannot create {}: {e}", self.raw, path.display()),
                })?;
                Ok(Arc::new(
                    object_store::local::LocalFileSystem::new_with_prefix(path)
                        .map_err(store_err)?,
                ))
            }
            Backend::Memory(name) => {
                static MEMORY: std::sync::LazyLock<
                    parking_lot::Mutex<
                        std::collections::HashMap<String, Arc<object_store::memory::InMemory>>,
                    >,
                > = std::sync::LazyLock::new(Default::default);
                let store = MEMORY
                    .lock()
                    .entry(name.clone())
                    .or_insert_with(|| Arc::new(object_store::memory::InMemory::new()))
                    .clone();
                Ok(store)
            }
        }
    }
}

/// The shared store, read and written by one thread (blocking calls on
/// its own single-threaded runtime; never call it from inside a runtime).
pub struct Bucket {
    url: SharedUrl,
    store: Arc<dyn ObjectStore>,
    rt: tokio::runtime::Runtime,
    requests: AtomicU64,
}

impl std::fmt::Debug for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bucket")
            .field("url", &self.url.raw)
            .finish()
    }
}

impl Bucket {
    /// Opens the store at `url` (no request is made yet).
    pub fn open(url: &SharedUrl) -> Result<Bucket, SharedError> {
        let store = url.open_store()?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| SharedError::Store {
                url: url.raw.clone(),
                message: format!("starting the sync runtime: {e}"),
            })?;
        Ok(Bucket {
            url: url.clone(),
            store,
            rt,
            requests: AtomicU64::new(0),
        })
    }

    pub fn url(&self) -> &SharedUrl {
        &self.url
    }

    /// Requests made so far (a list of many pages counts once per page).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    fn err(&self, e: object_store::Error) -> SharedError {
        use object_store::Error as E;
        let url = self.url.raw.clone();
        match e {
            E::PermissionDenied { .. } | E::Unauthenticated { .. } => SharedError::Denied {
                url,
                message: e.to_string(),
            },
            other => {
                let message = other.to_string();
                // Connection-level failures come back as a generic error
                // whose source chain says so.
                let lower = message.to_ascii_lowercase();
                let unreachable = [
                    "connect",
                    "timed out",
                    "timeout",
                    "dns",
                    "connection",
                    "broken pipe",
                    "reset by peer",
                ]
                .iter()
                .any(|w| lower.contains(w));
                let denied = [
                    "accessdenied",
                    "invalidaccesskeyid",
                    "signaturedoesnotmatch",
                ]
                .iter()
                .any(|w| lower.contains(w));
                if lower.contains("nosuchbucket") {
                    SharedError::Store {
                        message: "the bucket does not exist (create it first, or check the URL and AWS_ENDPOINT_URL)".into(),
                        url,
                    }
                } else if denied {
                    SharedError::Denied { url, message }
                } else if unreachable {
                    SharedError::Unreachable { url, message }
                } else {
                    SharedError::Store { url, message }
                }
            }
        }
    }

    fn count(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
    }

    /// The object at `key`, or `None` when there is none.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, SharedError> {
        self.count();
        let k = Key::from(key);
        self.rt.block_on(async {
            match self.store.get(&k).await {
                Ok(r) => match r.bytes().await {
                    Ok(b) => Ok(Some(b.to_vec())),
                    Err(e) => Err(self.err(e)),
                },
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(self.err(e)),
            }
        })
    }

    /// Deletes the object at `key` (nothing when there is none).
    pub fn delete(&self, key: &str) -> Result<(), SharedError> {
        self.count();
        let k = Key::from(key);
        match self.rt.block_on(self.store.delete(&k)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.err(e)),
        }
    }

    /// Writes (or overwrites) the object at `key`.
    pub fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), SharedError> {
        self.count();
        let k = Key::from(key);
        self.rt
            .block_on(self.store.put(&k, PutPayload::from(bytes)))
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Writes the object at `key` unless one is there: `Ok(true)` when this
    /// call created it. Stores without conditional writes fall back to a
    /// read, then a plain write (a race then leaves one of two writes).
    pub fn put_new(&self, key: &str, bytes: Vec<u8>) -> Result<bool, SharedError> {
        self.count();
        let k = Key::from(key);
        let opts = PutOptions {
            mode: PutMode::Create,
            ..Default::default()
        };
        let r = self.rt.block_on(
            self.store
                .put_opts(&k, PutPayload::from(bytes.clone()), opts),
        );
        match r {
            Ok(_) => Ok(true),
            Err(object_store::Error::AlreadyExists { .. })
            | Err(object_store::Error::Precondition { .. }) => Ok(false),
            Err(object_store::Error::NotImplemented { .. }) => {
                if self.get(key)?.is_some() {
                    return Ok(false);
                }
                self.put(key, bytes)?;
                Ok(true)
            }
            Err(e) => Err(self.err(e)),
        }
    }

    /// Keys under `prefix` (relative to it) that sort after `after`, in order.
    pub fn list_after(
        &self,
        prefix: &str,
        after: Option<&str>,
    ) -> Result<Vec<String>, SharedError> {
        use futures_util::TryStreamExt;
        self.count();
        let p = Key::from(prefix);
        let offset = after.map(|a| Key::from(format!("{}/{a}", prefix.trim_end_matches('/'))));
        let stream = match &offset {
            Some(o) => self.store.list_with_offset(Some(&p), o),
            None => self.store.list(Some(&p)),
        };
        let metas: Vec<object_store::ObjectMeta> = self
            .rt
            .block_on(stream.try_collect())
            .map_err(|e| self.err(e))?;
        let base = p.as_ref().len();
        let mut keys: Vec<String> = metas
            .into_iter()
            .map(|m| {
                let s = m.location.as_ref();
                s.get(base..)
                    .unwrap_or(s)
                    .trim_start_matches('/')
                    .to_string()
            })
            .filter(|k| after.is_none_or(|a| k.as_str() > a))
            .collect();
        keys.sort();
        Ok(keys)
    }

    /// The names one level under `prefix` (folders, as S3 lists common prefixes).
    pub fn children(&self, prefix: &str) -> Result<Vec<String>, SharedError> {
        self.count();
        let p = Key::from(prefix);
        let r = self
            .rt
            .block_on(self.store.list_with_delimiter(Some(&p)))
            .map_err(|e| self.err(e))?;
        let mut names: Vec<String> = r
            .common_prefixes
            .iter()
            .filter_map(|c| c.filename().map(str::to_string))
            .collect();
        names.sort();
        Ok(names)
    }
}
