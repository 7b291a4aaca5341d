//! What every HTTP client of rudder needs before it is built: the TLS
//! provider. The S3 store (object_store) and fork mode's JSON-RPC client
//! (reqwest) use rustls with ring, installed once as the process's default
//! provider (an embedder that installed its own keeps it).

use std::sync::Once;

/// Installs ring as rustls' process-wide provider, once; a provider
/// already installed (by an embedding program) stays.
pub fn tls() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
