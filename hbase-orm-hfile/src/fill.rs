//! The open data block's bytes, written cell by cell without a call to `memcpy` for the short
//! parts a cell is made of (a row key, a one-byte family, a qualifier, a value of a few bytes):
//! a copy of 4 to 32 bytes is one pair of overlapping fixed-size moves (the first and the last
//! 16, 8 or 4 bytes), as `memcpy` itself does it, without the call; fewer bytes are copied one
//! by one, more by `copy_from_slice`. The buffer's bytes are zeroed once, when it grows, and
//! every byte of a cell is written over.

/// A growing buffer whose filled length is kept apart from the bytes it has made ready.
#[derive(Default)]
pub(crate) struct Fill {
    /// Every byte made ready so far (zeroed when added, written over after).
    bytes: Vec<u8>,
    /// How many of them are filled.
    len: usize,
}

impl Fill {
    /// The filled bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// How many bytes are filled.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Empties the buffer, keeping its bytes for the next block.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The next `n` bytes, counted as filled: the caller writes every one of them through the
    /// cursor.
    #[inline(always)]
    pub(crate) fn next(&mut self, n: usize) -> Cursor<'_> {
        if self.bytes.len() - self.len < n {
            self.grow(n);
        }
        let at = self.len;
        self.len += n;
        Cursor::new(&mut self.bytes[at..at + n])
    }

    #[cold]
    fn grow(&mut self, n: usize) {
        let want = (self.len + n).max(2 * self.bytes.len()).max(4096);
        self.bytes.resize(want, 0);
    }
}

/// Writes one cell's bytes in order into the space [`Fill::next`] gave.
pub(crate) struct Cursor<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `out`.
    pub(crate) fn new(out: &'a mut [u8]) -> Self {
        Cursor { out, at: 0 }
    }

    /// Writes `N` bytes known at compile time (a length, a timestamp).
    #[inline(always)]
    pub(crate) fn put<const N: usize>(&mut self, bytes: [u8; N]) {
        self.out[self.at..self.at + N].copy_from_slice(&bytes);
        self.at += N;
    }

    /// Writes `bytes`, without a `memcpy` call when there are at most 32 of them.
    #[inline(always)]
    pub(crate) fn slice(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        copy(&mut self.out[self.at..self.at + n], bytes);
        self.at += n;
    }

    /// Whether every byte it was given has been written.
    pub(crate) fn is_full(&self) -> bool {
        self.at == self.out.len()
    }
}

/// `to.copy_from_slice(from)` (same lengths), short copies done as overlapping moves of 16, 8,
/// 4 or 1 byte.
#[inline(always)]
fn copy(to: &mut [u8], from: &[u8]) {
    let n = from.len();
    if n > 32 {
        to.copy_from_slice(from);
    } else if n >= 16 {
        move_ends::<16>(to, from);
    } else if n >= 8 {
        move_ends::<8>(to, from);
    } else if n >= 4 {
        move_ends::<4>(to, from);
    } else {
        for (t, f) in to.iter_mut().zip(from) {
            *t = *f;
        }
    }
}

/// Copies the first `N` and the last `N` bytes (`N <= n <= 2N`: together, all of them).
#[inline(always)]
fn move_ends<const N: usize>(to: &mut [u8], from: &[u8]) {
    let n = from.len();
    let head: [u8; N] = from[..N].try_into().expect("N bytes");
    let tail: [u8; N] = from[n - N..].try_into().expect("N bytes");
    to[..N].copy_from_slice(&head);
    to[n - N..].copy_from_slice(&tail);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_is_copied_whole() {
        let source: Vec<u8> = (1..=80).collect();
        for n in 0..=70 {
            let mut fill = Fill::default();
            // A cell of a 2-byte length, `n` bytes, then one byte, after bytes of another.
            let mut first = fill.next(3);
            first.slice(&[9, 9, 9]);
            assert!(first.is_full());
            let mut cursor = fill.next(2 + n + 1);
            cursor.put((n as u16).to_be_bytes());
            cursor.slice(&source[..n]);
            cursor.put([0xAB]);
            assert!(cursor.is_full());
            let mut expected = vec![9, 9, 9];
            expected.extend_from_slice(&(n as u16).to_be_bytes());
            expected.extend_from_slice(&source[..n]);
            expected.push(0xAB);
            assert_eq!(fill.as_slice(), expected, "{n} bytes");
        }
    }

    #[test]
    fn a_cleared_fill_is_written_over() {
        let mut fill = Fill::default();
        fill.next(5000).slice(&[7; 5000]);
        assert_eq!(fill.len(), 5000);
        fill.clear();
        assert!(fill.as_slice().is_empty());
        let mut cursor = fill.next(4);
        cursor.slice(b"abcd");
        assert!(cursor.is_full());
        assert_eq!(fill.as_slice(), b"abcd");
    }
}
