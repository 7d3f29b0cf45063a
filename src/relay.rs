//! A TCP relay in front of a gateway, for tests: it can be stopped for good (every connection
//! through it breaks, its port closes), counts the connections it carried, and keeps every
//! byte that crossed it either way (to show what travels in clear).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A running relay (see the module documentation).
pub struct Relay {
    /// Its `host:port`.
    pub address: String,
    stop: watch::Sender<bool>,
    carried: Arc<AtomicUsize>,
    /// What went to the target, and what came back (each direction on its own, so that a
    /// value split across two reads is still found whole).
    seen: [Arc<Mutex<Vec<u8>>>; 2],
}

impl Relay {
    /// Starts a relay to `target` on a free local port.
    pub async fn start(target: String) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let (stop, mut stopped) = watch::channel(false);
        let carried = Arc::new(AtomicUsize::new(0));
        let seen: [Arc<Mutex<Vec<u8>>>; 2] = Default::default();
        let (count, kept) = (carried.clone(), seen.clone());
        tokio::spawn(async move {
            let mut links = tokio::task::JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((inbound, _)) = accepted else { break };
                        count.fetch_add(1, Ordering::Relaxed);
                        let Ok(outbound) = TcpStream::connect(&target).await else { continue };
                        let (from_client, to_client) = inbound.into_split();
                        let (from_server, to_server) = outbound.into_split();
                        links.spawn(pump(from_client, to_server, kept[0].clone()));
                        links.spawn(pump(from_server, to_client, kept[1].clone()));
                    }
                    _ = stopped.changed() => break,
                }
            }
            // The port closes with the listener, and every relayed connection breaks.
            links.abort_all();
        });
        Relay {
            address,
            stop,
            carried,
            seen,
        }
    }

    /// Stops it for good.
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }

    /// How many connections it carried.
    pub fn carried(&self) -> usize {
        self.carried.load(Ordering::Relaxed)
    }

    /// How many bytes it relayed so far, both ways.
    pub fn relayed(&self) -> usize {
        self.seen.iter().map(|s| s.lock().unwrap().len()).sum()
    }

    /// Whether `marker` crossed it in clear, either way. (With several connections at once a
    /// direction's bytes interleave; the tests that look for a marker make one call at a time.)
    pub fn saw(&self, marker: &[u8]) -> bool {
        self.seen.iter().any(|s| {
            let bytes = s.lock().unwrap();
            bytes.windows(marker.len()).any(|w| w == marker)
        })
    }
}

/// Copies one direction of a connection, keeping what passes.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    kept: Arc<Mutex<Vec<u8>>>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        kept.lock().unwrap().extend_from_slice(&buf[..n]);
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}
