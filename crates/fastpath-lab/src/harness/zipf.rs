//! Skewed key streams: YCSB's scrambled Zipfian generator, which Caffeine's
//! `GetPutBenchmark` (the seed's LinkedHashMap_Lru numbers) uses to pick
//! keys, drawing from the harness's [`SplitMix64`].
//!
//! Where it sits: an experiment builds its key arrays with it before timing
//! (as Caffeine does in `@Setup`), so the generator's cost is never measured.
//!
//! [`Zipfian`] is the rejection-free method of Gray et al., "Quickly
//! generating billion-record synthetic databases" (SIGMOD 1994), as in
//! YCSB's `ZipfianGenerator`: with skew θ, ζ(n, θ) = Σ_{i=1..n} i^-θ, and
//! u uniform in [0, 1), rank 0 if u·ζ(n) < 1, rank 1 if below 1 + 0.5^θ,
//! else ⌊n·(η·u − η + 1)^α⌋ with α = 1/(1 − θ) and
//! η = (1 − (2/n)^(1−θ)) / (1 − ζ(2, θ)/ζ(n, θ)).
//!
//! [`ScrambledZipfian`] follows YCSB's `ScrambledZipfianGenerator`: draw
//! from a Zipfian over 10¹⁰ items with θ = 0.99 (ζ precomputed by YCSB as
//! 26.46902820178302, too costly to sum here), hash the rank with YCSB's
//! `Utils.fnvhash64` (64-bit FNV-1a, then `Math.abs` of the signed result)
//! and reduce it modulo the item count, so the popular keys are
//! scattered over the key space instead of being 0, 1, 2, … The most
//! popular key then has probability about 1/ζ = 3.8%.

pub use super::rng::SplitMix64;

/// Zipfian ranks 0..items (0 most popular).
#[derive(Clone, Debug)]
pub struct Zipfian {
    items: u64,
    theta: f64,
    zetan: f64,
    alpha: f64,
    eta: f64,
}

/// ζ(n, θ) = Σ_{i=1..n} i^-θ.
pub fn zeta(n: u64, theta: f64) -> f64 {
    (1..=n).map(|i| (i as f64).powf(-theta)).sum()
}

impl Zipfian {
    /// YCSB's default skew.
    pub const YCSB_THETA: f64 = 0.99;

    /// Over `items` ranks with skew `theta` (0 < θ < 1), computing ζ
    /// (O(items)).
    pub fn new(items: u64, theta: f64) -> Self {
        Self::with_zeta(items, theta, zeta(items, theta))
    }

    /// With a precomputed ζ(items, θ).
    pub fn with_zeta(items: u64, theta: f64, zetan: f64) -> Self {
        assert!(
            items >= 2 && theta > 0.0 && theta < 1.0,
            "Zipfian({items}, {theta})"
        );
        let zeta2 = 1.0 + 0.5f64.powf(theta);
        Zipfian {
            items,
            theta,
            zetan,
            alpha: 1.0 / (1.0 - theta),
            eta: (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
        }
    }

    /// The next rank.
    pub fn next(&self, rng: &mut SplitMix64) -> u64 {
        let u = rng.next_f64();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1;
        }
        let r = (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        r.min(self.items - 1)
    }
}

/// YCSB's scrambled Zipfian over keys 0..items (see the module docs).
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    items: u64,
    ranks: Zipfian,
}

impl ScrambledZipfian {
    /// YCSB `ScrambledZipfianGenerator.ITEM_COUNT`.
    pub const BASE_ITEMS: u64 = 10_000_000_000;
    /// YCSB `ScrambledZipfianGenerator.ZETAN`: ζ(10¹⁰, 0.99).
    pub const BASE_ZETA: f64 = 26.469_028_201_783_02;

    /// Keys 0..items.
    pub fn new(items: u64) -> Self {
        assert!(items >= 1);
        ScrambledZipfian {
            items,
            ranks: Zipfian::with_zeta(Self::BASE_ITEMS, Zipfian::YCSB_THETA, Self::BASE_ZETA),
        }
    }

    /// The next key.
    pub fn next(&self, rng: &mut SplitMix64) -> u64 {
        self.key_for_rank(self.ranks.next(rng))
    }

    /// The key a Zipfian rank maps to: YCSB's `fnvhash64(rank) % itemcount`.
    pub fn key_for_rank(&self, rank: u64) -> u64 {
        ycsb_fnvhash64(rank) % self.items
    }
}

/// YCSB `Utils.fnvhash64`: [`fnv1a64`] read as a Java `long`, then
/// `Math.abs`. The fold matters: for the half of the ranks whose hash has
/// the top bit set, `|h| % n` and `h % n` are different keys, so without it
/// the hot keys would not be YCSB's (and Caffeine's). For the one hash
/// equal to `Long.MIN_VALUE`, Java's `Math.abs` stays negative and YCSB
/// would produce a negative key; `unsigned_abs` gives 2⁶³ instead, a key in
/// range (a 2⁻⁶⁴ event, not worth a negative key).
pub fn ycsb_fnvhash64(v: u64) -> u64 {
    (fnv1a64(v) as i64).unsigned_abs()
}

/// 64-bit FNV-1a over the eight little-endian bytes of `v`.
pub fn fnv1a64(v: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in v.to_le_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipfian_rank_zero_has_probability_one_over_zeta() {
        let z = Zipfian::new(1000, Zipfian::YCSB_THETA);
        let mut rng = SplitMix64::new(7);
        let n = 200_000;
        let mut counts = vec![0u32; 1000];
        for _ in 0..n {
            counts[z.next(&mut rng) as usize] += 1;
        }
        let p0 = f64::from(counts[0]) / n as f64;
        let expect = 1.0 / zeta(1000, 0.99);
        assert!((p0 - expect).abs() < 0.01, "{p0} vs {expect}");
        // Skewed: rank 0 beats rank 10 beats rank 500 by a wide margin.
        assert!(counts[0] > 5 * counts[10] && counts[10] > 5 * counts[500].max(1));
    }

    #[test]
    fn scrambled_keys_are_in_range_and_skewed() {
        let items = 10_922;
        let g = ScrambledZipfian::new(items);
        let mut rng = SplitMix64::new(42);
        let n = 200_000;
        let mut counts = vec![0u32; items as usize];
        for _ in 0..n {
            let k = g.next(&mut rng);
            assert!(k < items);
            counts[k as usize] += 1;
        }
        let max = *counts.iter().max().unwrap();
        let p = f64::from(max) / n as f64;
        // ≈ 1/26.47 = 3.8% for the hottest key; uniform would be 0.009%.
        assert!(p > 0.03 && p < 0.06, "{p}");
        // The hottest key is not key 0 (the scramble moved it).
        assert_ne!(counts.iter().position(|&c| c == max), Some(0));
    }

    #[test]
    fn fnv_matches_reference() {
        // FNV-1a 64 of eight zero bytes.
        assert_eq!(fnv1a64(0), 0xa8c7_f832_281a_39c5);
    }

    #[test]
    fn scramble_matches_ycsb_sign_fold() {
        // Java: Math.abs(0xA8C7F832281A39C5L) = 0x573807CDD7E5C63BL, and
        // 6284781860667377211 % 10922 = 7091 (not 4087, the unfolded h % n).
        assert_eq!(ycsb_fnvhash64(0), 0x5738_07cd_d7e5_c63b);
        assert_eq!(ScrambledZipfian::new(10_922).key_for_rank(0), 7091);
        // A hash with the top bit clear is left alone.
        let r = (0..64).find(|&r| fnv1a64(r) >> 63 == 0).unwrap();
        assert_eq!(ycsb_fnvhash64(r), fnv1a64(r));
    }
}
