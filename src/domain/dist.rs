//! Value distributions kept in rollups: a histogram of integer values (MOS in hundredths,
//! latency in milliseconds) with exact counts, plus exact sums. From those, min, max,
//! average and median over any set of rollup rows are the exact statistics of the stored
//! values, rounded half up to the precision the console shows (see `docs/ingest.md`).
//!
//! Encoded histogram: `varint(pairs)`, then per pair in ascending value order
//! `varint(value - previous value)` and `varint(count)`.

use super::varint::{self, Corrupt, Reader};

/// Histogram pairs `(value, count)`.
pub type Pairs = Vec<(u32, u32)>;

/// Sorts `values` and counts equal ones.
pub fn from_values(values: &mut [u32]) -> Pairs {
    values.sort_unstable();
    let mut pairs: Pairs = Vec::new();
    for &v in values.iter() {
        match pairs.last_mut() {
            Some((last, n)) if *last == v => *n += 1,
            _ => pairs.push((v, 1)),
        }
    }
    pairs
}

/// Encodes pairs sorted by value with distinct values.
pub fn encode(pairs: &[(u32, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + pairs.len() * 3);
    varint::put_u64(&mut out, pairs.len() as u64);
    let mut prev = 0u32;
    for &(v, n) in pairs {
        varint::put_u64(&mut out, u64::from(v - prev));
        varint::put_u64(&mut out, u64::from(n));
        prev = v;
    }
    out
}

/// Appends the pairs of an encoded histogram to `out`.
pub fn decode_into(blob: &[u8], out: &mut Pairs) -> Result<(), Corrupt> {
    let mut r = Reader::new(blob);
    let len = r.u64()?;
    out.reserve(len.min(1 << 20) as usize);
    let mut v = 0u32;
    for _ in 0..len {
        v = v.checked_add(r.u32()?).ok_or(Corrupt(0))?;
        out.push((v, r.u32()?));
    }
    Ok(())
}

/// Merges two encoded histograms (either may be absent).
pub fn merge(a: Option<&[u8]>, b: Option<&[u8]>) -> Result<Option<Vec<u8>>, Corrupt> {
    match (a, b) {
        (None, None) => Ok(None),
        (Some(x), None) | (None, Some(x)) => Ok(Some(x.to_vec())),
        (Some(a), Some(b)) => {
            let (mut pa, mut pb) = (Vec::new(), Vec::new());
            decode_into(a, &mut pa)?;
            decode_into(b, &mut pb)?;
            let mut out: Pairs = Vec::with_capacity(pa.len() + pb.len());
            let (mut i, mut j) = (0, 0);
            while i < pa.len() || j < pb.len() {
                let next = match (pa.get(i), pb.get(j)) {
                    (Some(x), Some(y)) if x.0 == y.0 => {
                        i += 1;
                        j += 1;
                        (x.0, x.1 + y.1)
                    }
                    (Some(x), Some(y)) if x.0 < y.0 => {
                        i += 1;
                        *x
                    }
                    (Some(_), Some(y)) => {
                        j += 1;
                        *y
                    }
                    (Some(x), None) => {
                        i += 1;
                        *x
                    }
                    (None, Some(y)) => {
                        j += 1;
                        *y
                    }
                    (None, None) => unreachable!(),
                };
                out.push(next);
            }
            Ok(Some(encode(&out)))
        }
    }
}

/// Half-up rounding of `num / den` for non-negative integers.
pub fn round_div(num: u64, den: u64) -> u64 {
    if den == 0 {
        return 0;
    }
    (2 * num as u128 + den as u128).div_euclid(2 * den as u128) as u64
}

/// Collects rollup rows (count, sum, histogram) into one distribution.
#[derive(Debug, Default, Clone)]
pub struct Acc {
    pub n: u64,
    pub sum: u64,
    pairs: Pairs,
}

impl Acc {
    /// Adds one rollup row.
    pub fn add(&mut self, n: u64, sum: u64, hist: Option<&[u8]>) -> Result<(), Corrupt> {
        self.n += n;
        self.sum += sum;
        if let Some(h) = hist {
            decode_into(h, &mut self.pairs)?;
        }
        Ok(())
    }

    /// Adds a single raw value.
    pub fn add_value(&mut self, v: u32) {
        self.n += 1;
        self.sum += u64::from(v);
        self.pairs.push((v, 1));
    }

    /// Takes one value added before out again (a run the rollups hold that a figure leaves
    /// out); false when no such value was added.
    pub fn remove_value(&mut self, v: u32) -> bool {
        match self.pairs.iter_mut().find(|p| p.0 == v && p.1 > 0) {
            Some(p) => {
                p.1 -= 1;
                self.n = self.n.saturating_sub(1);
                self.sum = self.sum.saturating_sub(u64::from(v));
                true
            }
            None => false,
        }
    }

    /// Min, max, sum and median of everything added; `None` when empty.
    pub fn summary(&mut self) -> Option<Summary> {
        // Values taken out leave pairs of count 0 behind.
        self.pairs.retain(|p| p.1 > 0);
        if self.n == 0 || self.pairs.is_empty() {
            return None;
        }
        let min = self.pairs.iter().map(|p| p.0).min().unwrap_or(0);
        let max = self.pairs.iter().map(|p| p.0).max().unwrap_or(0);
        let total: u64 = self.pairs.iter().map(|p| u64::from(p.1)).sum();
        let (lo_rank, hi_rank) = ((total - 1) / 2, total / 2);
        let range = (max - min) as usize;
        let (lo, hi) = if range <= DENSE_MAX && range <= 8 * self.pairs.len() + 1024 {
            // Counting over the value range: linear in pairs and range, no sort.
            let mut counts = vec![0u64; range + 1];
            for &(v, c) in &self.pairs {
                counts[(v - min) as usize] += u64::from(c);
            }
            ranks(
                counts.iter().enumerate().map(|(i, &c)| (min + i as u32, c)),
                lo_rank,
                hi_rank,
            )
        } else {
            self.pairs.sort_unstable_by_key(|p| p.0);
            ranks(
                self.pairs.iter().map(|&(v, c)| (v, u64::from(c))),
                lo_rank,
                hi_rank,
            )
        };
        Some(Summary {
            n: total,
            sum: self.sum,
            min,
            max,
            median_x2: u64::from(lo) + u64::from(hi),
        })
    }
}

/// Widest value range counted in an array rather than sorted.
const DENSE_MAX: usize = 1 << 20;

/// The values at ranks `lo` and `hi` (0-based) of `(value, count)` in ascending value order.
fn ranks(pairs: impl Iterator<Item = (u32, u64)>, lo: u64, hi: u64) -> (u32, u32) {
    let (mut at_lo, mut seen) = (None, 0u64);
    for (v, c) in pairs {
        seen += c;
        if at_lo.is_none() && seen > lo {
            at_lo = Some(v);
        }
        if seen > hi {
            return (at_lo.unwrap_or(v), v);
        }
    }
    (at_lo.unwrap_or(0), 0)
}

/// Exact statistics of a set of integer values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub n: u64,
    pub sum: u64,
    pub min: u32,
    pub max: u32,
    /// Twice the median (the sum of the two middle values when the count is even), so it
    /// stays an exact integer.
    pub median_x2: u64,
}

/// Statistics in display units, each the exact value rounded half up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shown {
    pub min: f64,
    pub max: f64,
    pub avg: f64,
    pub median: f64,
}

impl Summary {
    /// Converts to display units: `div` raw units per display step, `steps` display steps
    /// per shown unit. MOS: hundredths to 1 decimal = `(10, 10.0)`; latency: ms to seconds
    /// with 2 decimals = `(10, 100.0)`.
    pub fn shown(&self, div: u64, steps: f64) -> Shown {
        Shown {
            min: round_div(u64::from(self.min), div) as f64 / steps,
            max: round_div(u64::from(self.max), div) as f64 / steps,
            avg: round_div(self.sum, self.n * div) as f64 / steps,
            median: round_div(self.median_x2, 2 * div) as f64 / steps,
        }
    }

    /// MOS stored in hundredths, shown with 1 decimal.
    pub fn mos(&self) -> Shown {
        self.shown(10, 10.0)
    }

    /// Latency stored in ms, shown in seconds with 2 decimals.
    pub fn latency_secs(&self) -> Shown {
        self.shown(10, 100.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value taken out (a run in a maintenance window) leaves the others' exact figures,
    /// whether it came from a histogram or alone.
    #[test]
    fn a_value_taken_out_leaves_the_others_figures() {
        let mut a = Acc::default();
        a.add(
            3,
            420 + 380 + 100,
            Some(&encode(&from_values(&mut [420, 380, 100]))),
        )
        .unwrap();
        a.add_value(400);
        assert!(a.remove_value(100));
        assert!(!a.remove_value(999));
        let s = a.summary().unwrap();
        assert_eq!(
            (s.n, s.sum, s.min, s.max, s.median_x2),
            (3, 1200, 380, 420, 800)
        );
        assert!(a.remove_value(400) && a.remove_value(380) && a.remove_value(420));
        assert_eq!(a.summary(), None);
    }

    fn acc_of(values: &[u32]) -> Acc {
        let mut a = Acc::default();
        for &v in values {
            a.add_value(v);
        }
        a
    }

    #[test]
    fn encode_round_trip() {
        let mut values = vec![430, 120, 430, 500, 120, 120];
        let pairs = from_values(&mut values);
        assert_eq!(pairs, vec![(120, 3), (430, 2), (500, 1)]);
        let blob = encode(&pairs);
        let mut back = Vec::new();
        decode_into(&blob, &mut back).unwrap();
        assert_eq!(back, pairs);
        assert!(decode_into(&blob[..blob.len() - 1], &mut Vec::new()).is_err());
    }

    #[test]
    fn merge_adds_counts() {
        let a = encode(&[(1, 1), (5, 2), (9, 1)]);
        let b = encode(&[(0, 4), (5, 1), (10, 1)]);
        let m = merge(Some(&a), Some(&b)).unwrap().unwrap();
        let mut back = Vec::new();
        decode_into(&m, &mut back).unwrap();
        assert_eq!(back, vec![(0, 4), (1, 1), (5, 3), (9, 1), (10, 1)]);
        assert_eq!(merge(None, Some(&a)).unwrap().unwrap(), a);
        assert_eq!(merge(None, None).unwrap(), None);
    }

    #[test]
    fn median_odd_and_even() {
        let s = acc_of(&[5, 1, 3]).summary().unwrap();
        assert_eq!((s.min, s.max, s.median_x2, s.sum, s.n), (1, 5, 6, 9, 3));
        let s = acc_of(&[4, 1, 3, 10]).summary().unwrap();
        assert_eq!(s.median_x2, 7); // (3 + 4) / 2 = 3.5
        let s = acc_of(&[7]).summary().unwrap();
        assert_eq!(s.median_x2, 14);
        assert!(Acc::default().summary().is_none());
    }

    #[test]
    fn median_across_rows_equals_median_of_all_values() {
        // Values split over several rollup rows with repeated values.
        let rows: [&[u32]; 3] = [&[100, 250, 250], &[250, 300], &[90, 400, 410, 250]];
        let mut acc = Acc::default();
        let mut all = Vec::new();
        for r in rows {
            let mut v = r.to_vec();
            all.extend_from_slice(r);
            let sum = v.iter().map(|&x| u64::from(x)).sum();
            acc.add(v.len() as u64, sum, Some(&encode(&from_values(&mut v))))
                .unwrap();
        }
        all.sort_unstable();
        let n = all.len();
        let expect_x2 = if n % 2 == 1 {
            2 * all[n / 2] as u64
        } else {
            all[n / 2 - 1] as u64 + all[n / 2] as u64
        };
        let s = acc.summary().unwrap();
        assert_eq!(s.median_x2, expect_x2);
        assert_eq!(s.n, n as u64);
        assert_eq!((s.min, s.max), (90, 410));
    }

    #[test]
    fn dense_and_sorted_paths_agree() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for round in 0..200 {
            // Narrow ranges take the counting path, wide ones (and a few pairs) the sort.
            let width = if round % 2 == 0 { 3_000 } else { 50_000_000 };
            let n = rng.gen_range(1..400);
            let values: Vec<u32> = (0..n).map(|_| rng.gen_range(0..width)).collect();
            let s = acc_of(&values).summary().unwrap();
            let mut v = values.clone();
            v.sort_unstable();
            let expect = u64::from(v[(v.len() - 1) / 2]) + u64::from(v[v.len() / 2]);
            assert_eq!(s.median_x2, expect, "{values:?}");
            assert_eq!((s.min, s.max), (v[0], v[v.len() - 1]));
            assert_eq!(s.n, n as u64);
        }
    }

    #[test]
    fn rounding_is_half_up_and_exact() {
        assert_eq!(round_div(5, 10), 1);
        assert_eq!(round_div(4, 10), 0);
        assert_eq!(round_div(15, 10), 2);
        assert_eq!(round_div(25, 10), 3);
        assert_eq!(round_div(0, 0), 0);
        // MOS 4.25 and 4.34 (hundredths): avg 4.295 -> 4.3; median 4.295 -> 4.3.
        let mos = acc_of(&[425, 434]).summary().unwrap().mos();
        assert_eq!(
            mos,
            Shown {
                min: 4.3,
                max: 4.3,
                avg: 4.3,
                median: 4.3
            }
        );
        // 4.24 and 4.25: avg 4.245 -> 4.2 (half up on the tenth: 42.45 -> 42).
        let mos = acc_of(&[424, 425]).summary().unwrap().mos();
        assert_eq!((mos.min, mos.max, mos.avg), (4.2, 4.3, 4.2));
        // Latency 1004 ms and 1015 ms: min 1.00, max 1.02 (1.015 half up), avg 1.0095 -> 1.01.
        let lat = acc_of(&[1004, 1015]).summary().unwrap().latency_secs();
        assert_eq!(
            lat,
            Shown {
                min: 1.0,
                max: 1.02,
                avg: 1.01,
                median: 1.01
            }
        );
    }
}
