//! The last stage of an entity scan: rows, still in their pages, decoded into entities in one
//! step per row (no chain of stream adapters for each row to pass through).

use std::pin::Pin;
use std::task::{ready, Context, Poll};

use futures::stream::{BoxStream, Stream, StreamExt};

use crate::model::{Result, ScannedRow};

/// Decodes each row with `decode`, which says `None` for a row that holds no entity (another
/// record type, a key a key test drops, a partial row). The first error, the scan's or a
/// decode's, is the last item; so is the `limit`-th entity.
pub(super) struct Decoding<T, F> {
    rows: BoxStream<'static, Result<ScannedRow>>,
    decode: F,
    /// Entities still to give, without a limit `None`.
    left: Option<usize>,
    done: bool,
    entity: std::marker::PhantomData<fn() -> T>,
}

impl<T, F> Decoding<T, F>
where
    F: FnMut(&ScannedRow) -> Option<Result<T>>,
{
    pub(super) fn new(
        rows: BoxStream<'static, Result<ScannedRow>>,
        limit: Option<usize>,
        decode: F,
    ) -> Self {
        Decoding {
            rows,
            decode,
            left: limit,
            done: limit == Some(0),
            entity: std::marker::PhantomData,
        }
    }
}

impl<T, F> Stream for Decoding<T, F>
where
    F: FnMut(&ScannedRow) -> Option<Result<T>> + Unpin,
{
    type Item = Result<T>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<T>>> {
        let this = &mut *self;
        while !this.done {
            let item = match ready!(this.rows.poll_next_unpin(cx)) {
                None => {
                    this.done = true;
                    break;
                }
                Some(Err(e)) => Err(e),
                Some(Ok(row)) => match (this.decode)(&row) {
                    Some(item) => item,
                    None => continue,
                },
            };
            if let Some(left) = &mut this.left {
                *left -= 1;
                this.done = *left == 0;
            }
            this.done |= item.is_err();
            return Poll::Ready(Some(item));
        }
        Poll::Ready(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Error, ScannerPageBuilder};
    use futures::executor::block_on;

    /// A stream of rows `keys` (a key `b"!"` is a scan error instead).
    fn rows(keys: &[&'static [u8]]) -> BoxStream<'static, Result<ScannedRow>> {
        let items: Vec<Result<ScannedRow>> = keys
            .iter()
            .map(|&k| {
                if k == b"!" {
                    return Err(Error::IllegalArgument {
                        message: "scan".into(),
                    });
                }
                let mut b = ScannerPageBuilder::new(1, 0);
                b.end_row(k, Some(k)).unwrap();
                let page = std::sync::Arc::new(b.finish(bytes::Bytes::from_static(k)).unwrap());
                Ok(ScannedRow::new(page, 0))
            })
            .collect();
        futures::stream::iter(items).boxed()
    }

    /// Keys as the stream gives them: `Ok(key)`, or `Err(())` for an error.
    fn run(keys: &[&'static [u8]], limit: Option<usize>) -> Vec<std::result::Result<u8, ()>> {
        // Rows whose key starts with `s` hold no entity; `x` fails to decode.
        let decode = |row: &ScannedRow| match row.key()[0] {
            b's' => None,
            b'x' => Some(Err(Error::IllegalArgument {
                message: "decode".into(),
            })),
            k => Some(Ok(k)),
        };
        let stream = Decoding::new(rows(keys), limit, decode);
        block_on(stream.collect::<Vec<_>>())
            .into_iter()
            .map(|r| r.map_err(|_| ()))
            .collect()
    }

    #[test]
    fn rows_without_an_entity_are_skipped_and_the_first_error_ends_the_stream() {
        assert_eq!(run(&[b"a", b"s", b"b"], None), [Ok(b'a'), Ok(b'b')]);
        assert_eq!(run(&[b"a", b"x", b"b"], None), [Ok(b'a'), Err(())]);
        assert_eq!(run(&[b"a", b"!", b"b"], None), [Ok(b'a'), Err(())]);
        assert_eq!(run(&[b"s", b"s"], None), []);
    }

    #[test]
    fn a_limit_counts_entities_not_rows() {
        assert_eq!(
            run(&[b"s", b"a", b"s", b"b", b"c"], Some(2)),
            [Ok(b'a'), Ok(b'b')]
        );
        assert_eq!(run(&[b"a", b"b"], Some(0)), []);
        assert_eq!(run(&[b"x", b"b"], Some(5)), [Err(())]);
    }
}
