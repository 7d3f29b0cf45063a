//! Hadoop's variable-length integers, as HBase writes lengths in index blocks and a cell's
//! memstore timestamp.

/// Appends `v` as Hadoop's `WritableUtils.writeVLong` does: one byte for -112..=127, else a
/// byte giving sign and length and then the magnitude's bytes, most significant first.
pub(crate) fn write_vlong(out: &mut Vec<u8>, v: i64) {
    if (-112..=127).contains(&v) {
        out.push(v as u8);
        return;
    }
    let (mut len, magnitude) = if v < 0 { (-120i32, !v) } else { (-112, v) };
    let bytes = 8 - (magnitude.leading_zeros() / 8) as usize;
    len -= bytes as i32;
    out.push(len as u8);
    out.extend_from_slice(&magnitude.to_be_bytes()[8 - bytes..]);
}

/// The length of `v` as [`write_vlong`] writes it.
pub(crate) fn vlong_len(v: i64) -> usize {
    if (-112..=127).contains(&v) {
        return 1;
    }
    let magnitude = if v < 0 { !v } else { v };
    1 + 8 - (magnitude.leading_zeros() / 8) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vlongs_are_hadoop_s() {
        let cases: [(i64, &[u8]); 6] = [
            (0, &[0]),
            (127, &[0x7f]),
            (128, &[0x8f, 0x80]),
            (300, &[0x8e, 0x01, 0x2c]),
            (-113, &[0x87, 0x70]),
            (1 << 40, &[0x8a, 1, 0, 0, 0, 0, 0]),
        ];
        for (v, bytes) in cases {
            let mut out = Vec::new();
            write_vlong(&mut out, v);
            assert_eq!(out, bytes, "{v}");
            assert_eq!(vlong_len(v), bytes.len(), "{v}");
        }
    }
}
