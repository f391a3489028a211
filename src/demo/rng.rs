//! A small deterministic random number generator (SplitMix64). The demo derives one
//! stream per run from (seed, test case, slot), so any run can be generated on its own
//! and comes out the same whether it is part of the history or of the live feed.

#[derive(Debug, Clone)]
pub struct Rng(u64);

fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(mix(seed ^ 0x9e37_79b9_7f4a_7c15))
    }

    /// A stream keyed by several numbers (seed, case id, slot...).
    pub fn keyed(parts: &[u64]) -> Rng {
        let mut h = 0x243f_6a88_85a3_08d3u64;
        for p in parts {
            h = mix(h ^ p.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        }
        Rng(h)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in [lo, hi].
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Roughly normal (sum of uniforms), mean 0, deviation 1.
    pub fn normal(&mut self) -> f64 {
        (0..6).map(|_| self.unit()).sum::<f64>() * std::f64::consts::SQRT_2
            - 6.0 / 2.0 * std::f64::consts::SQRT_2
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next_u64() % items.len() as u64) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_same_stream_other_key_other_stream() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::keyed(&[1, 2, 3]);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::keyed(&[1, 2, 3]);
                move |_| r.next_u64()
            })
            .collect();
        let c = Rng::keyed(&[1, 2, 4]).next_u64();
        assert_eq!(a, b);
        assert_ne!(a[0], c);
    }

    #[test]
    fn unit_is_in_range_and_spread() {
        let mut r = Rng::new(7);
        let xs: Vec<f64> = (0..10_000).map(|_| r.unit()).collect();
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
        let n: Vec<f64> = (0..10_000).map(|_| r.normal()).collect();
        let m = n.iter().sum::<f64>() / n.len() as f64;
        let sd = (n.iter().map(|x| (x - m).powi(2)).sum::<f64>() / n.len() as f64).sqrt();
        assert!(m.abs() < 0.05 && (sd - 1.0).abs() < 0.1, "{m} {sd}");
    }
}
