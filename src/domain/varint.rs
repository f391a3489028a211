//! LEB128 variable-length integers, the unit of every compact blob the store keeps
//! (histograms, per-run step results).

/// Appends `v` as an unsigned LEB128 varint.
pub fn put_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` zigzag-encoded (small negative numbers stay short).
pub fn put_i64(out: &mut Vec<u8>, v: i64) {
    put_u64(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Reads varints from a byte slice.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// The blob ended early or a varint was too long.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt blob at byte {0}")]
pub struct Corrupt(pub usize);

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    pub fn u8(&mut self) -> Result<u8, Corrupt> {
        let b = *self.buf.get(self.pos).ok_or(Corrupt(self.pos))?;
        self.pos += 1;
        Ok(b)
    }

    pub fn u64(&mut self) -> Result<u64, Corrupt> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(Corrupt(self.pos))
    }

    /// The next `len` bytes.
    pub fn take(&mut self, len: usize) -> Result<&'a [u8], Corrupt> {
        let end = self.pos.checked_add(len).ok_or(Corrupt(self.pos))?;
        let bytes = self.buf.get(self.pos..end).ok_or(Corrupt(self.pos))?;
        self.pos = end;
        Ok(bytes)
    }

    pub fn u32(&mut self) -> Result<u32, Corrupt> {
        u32::try_from(self.u64()?).map_err(|_| Corrupt(self.pos))
    }

    pub fn i64(&mut self) -> Result<i64, Corrupt> {
        let u = self.u64()?;
        Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let mut buf = Vec::new();
        let unsigned = [
            0u64,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            u32::MAX as u64,
            u64::MAX,
        ];
        let signed = [0i64, -1, 1, -64, 64, -1_000_000, i64::MIN, i64::MAX];
        for v in unsigned {
            put_u64(&mut buf, v);
        }
        for v in signed {
            put_i64(&mut buf, v);
        }
        let mut r = Reader::new(&buf);
        for v in unsigned {
            assert_eq!(r.u64().unwrap(), v);
        }
        for v in signed {
            assert_eq!(r.i64().unwrap(), v);
        }
        assert!(r.is_empty());
        assert!(r.u64().is_err());
    }

    #[test]
    fn small_values_take_one_byte() {
        let mut buf = Vec::new();
        put_u64(&mut buf, 127);
        put_i64(&mut buf, -63);
        assert_eq!(buf.len(), 2);
    }

    #[test]
    fn truncated_is_an_error() {
        assert_eq!(Reader::new(&[0x80]).u64(), Err(Corrupt(1)));
    }
}
