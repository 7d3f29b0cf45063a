//! A connection's SASL security layer (`hbase.rpc.protection` `integrity` or `privacy`):
//! every message either way, from the connection header on, travels as a 4-byte length and
//! the message wrapped by GSSAPI (signed, or signed and encrypted). Unwrapped, the messages
//! make the same stream of frames as an unprotected connection: one message may hold several
//! frames or part of one (HBase's server wraps whatever it flushes at once).

use std::sync::Mutex;

use bytes::{Buf, BytesMut};

use crate::backend::kerberos::SaslLayer;

/// The security layer, shared by a connection's writers and its reader (one GSSAPI context,
/// whose sequence numbers both directions use).
pub(super) struct Protection {
    layer: Mutex<SaslLayer>,
    /// The largest wrapped message taken from the server.
    max_message: usize,
}

/// Room for the wrapping and for a few replies more than the largest one in one message.
const SLACK: usize = 1 << 20;

impl Protection {
    /// Messages through `layer`; a wrapped reply larger than `max_reply_bytes` (and a little
    /// more for the wrapping) takes the connection down: it cannot be skipped unread.
    pub(super) fn new(layer: SaslLayer, max_reply_bytes: usize) -> Protection {
        Protection {
            layer: Mutex::new(layer),
            max_message: max_reply_bytes.saturating_add(SLACK),
        }
    }

    /// `parts`, joined and wrapped, as they go on the wire (the length first).
    pub(super) fn wrap(&self, parts: &[&[u8]]) -> std::io::Result<Vec<u8>> {
        let plain = parts.concat();
        let wrapped = self.lock().wrap(&plain)?;
        let len = u32::try_from(wrapped.len()).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("a wrapped message of {} bytes", wrapped.len()),
            )
        })?;
        let mut out = Vec::with_capacity(4 + wrapped.len());
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&wrapped);
        Ok(out)
    }

    /// Unwraps the whole messages at the start of `raw` (what came off the socket) onto the
    /// end of `plain`, leaving in `raw` the start of a message not all read yet.
    pub(super) fn unwrap_into(
        &self,
        raw: &mut BytesMut,
        plain: &mut BytesMut,
    ) -> Result<(), String> {
        while let Some(head) = raw.get(..4) {
            let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
            if len > self.max_message {
                return Err(format!(
                    "a wrapped message of {len} bytes exceeds the limit of {} bytes \
                     (Config::max_reply_bytes and room for the wrapping)",
                    self.max_message
                ));
            }
            if raw.len() < 4 + len {
                raw.reserve(4 + len - raw.len());
                return Ok(());
            }
            let message = &raw[4..4 + len];
            let unwrapped = self
                .lock()
                .unwrap(message)
                .map_err(|e| format!("a reply that does not unwrap: {e}"))?;
            plain.extend_from_slice(&unwrapped);
            raw.advance(4 + len);
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SaslLayer> {
        self.layer.lock().unwrap_or_else(|p| p.into_inner())
    }
}
