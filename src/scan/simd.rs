//! Which instruction set the vector loops of [`crate::scan`] and `record::keys` use: the
//! widest the CPU has, or a narrower one asked for with `IDGREP_SIMD` (see the scan module
//! doc), settled once per process. A [`Simd`] value exists only for a level the CPU
//! supports, so a dispatcher holding one may call that level's `unsafe` kernels.

use std::sync::atomic::{AtomicU8, Ordering};

/// The dispatch levels, narrowest first. Each level's CPU features include the ones of the
/// levels below it on every real CPU; [`Simd::supported`] checks them all the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Byte-at-a-time loops, on every target.
    Scalar,
    /// 16-byte vectors, on every x86_64 CPU.
    Sse2,
    /// 32-byte vectors, and the SSE4.1 shuffle decoders of [`crate::id::sse41`].
    Avx2,
    /// 64-byte vectors and mask registers.
    Avx512,
}

impl Level {
    /// Every level, widest first.
    pub const ALL: [Level; 4] = [Level::Avx512, Level::Avx2, Level::Sse2, Level::Scalar];

    /// The name `IDGREP_SIMD` and `IDGREP_REQUIRE_SIMD` use.
    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Sse2 => "sse2",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|level| level.name() == name)
    }

    /// The CPU features (as `is_x86_feature_detected!` names them) the level's loops enable.
    pub(crate) fn features(self) -> &'static [&'static str] {
        match self {
            Level::Scalar => &[],
            Level::Sse2 => &["sse2"],
            Level::Avx2 => &["avx2", "sse4.1"],
            Level::Avx512 => &["avx512f", "avx512dq", "avx512bw", "popcnt"],
        }
    }

    /// The features of this level the CPU lacks; on targets without the vector loops,
    /// every feature counts as lacking.
    pub(crate) fn missing_features(self) -> Vec<&'static str> {
        self.features()
            .iter()
            .copied()
            .filter(|&feature| !has_feature(feature))
            .collect()
    }
}

#[cfg(target_arch = "x86_64")]
fn has_feature(feature: &str) -> bool {
    match feature {
        "sse2" => std::is_x86_feature_detected!("sse2"),
        "sse4.1" => std::is_x86_feature_detected!("sse4.1"),
        "avx2" => std::is_x86_feature_detected!("avx2"),
        "avx512f" => std::is_x86_feature_detected!("avx512f"),
        "avx512dq" => std::is_x86_feature_detected!("avx512dq"),
        "avx512bw" => std::is_x86_feature_detected!("avx512bw"),
        "popcnt" => std::is_x86_feature_detected!("popcnt"),
        _ => unreachable!("{feature}: not a feature of any level"),
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn has_feature(_: &str) -> bool {
    false
}

/// A dispatch level whose CPU features are present: the only ways to make one check them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Simd(Level);

/// The level [`Simd::current`] settled on, as its index in [`Level::ALL`] plus one; 0 until
/// the first call.
static CURRENT: AtomicU8 = AtomicU8::new(0);

impl Simd {
    /// The level every search uses: the widest the CPU supports, at most the one named by
    /// `IDGREP_SIMD`. One relaxed load once settled, as cheap as the feature-detection cache.
    #[inline]
    pub(crate) fn current() -> Simd {
        match CURRENT.load(Ordering::Relaxed) {
            0 => Simd::settle(),
            stored => Simd(Level::ALL[usize::from(stored) - 1]),
        }
    }

    /// Reads `IDGREP_SIMD` and detects the CPU's features, once (racing first calls agree).
    #[cold]
    #[inline(never)]
    fn settle() -> Simd {
        let cap = std::env::var("IDGREP_SIMD").ok();
        let simd = Simd::widest_up_to(requested_cap(cap.as_deref()));
        let index = Level::ALL
            .iter()
            .position(|&l| l == simd.0)
            .expect("a level");
        CURRENT.store(index as u8 + 1, Ordering::Relaxed);
        simd
    }

    /// The widest supported level no wider than `cap`: scalar at least.
    pub(crate) fn widest_up_to(cap: Level) -> Simd {
        Level::ALL
            .into_iter()
            .filter(|&level| level <= cap)
            .find_map(Simd::supported)
            .expect("the scalar level needs no feature")
    }

    /// `level`, when the CPU has its features, whatever `IDGREP_SIMD` says.
    pub(crate) fn supported(level: Level) -> Option<Simd> {
        level.missing_features().is_empty().then_some(Simd(level))
    }

    pub(crate) fn level(self) -> Level {
        self.0
    }
}

/// The cap an `IDGREP_SIMD` value sets: a level's name, or no cap for anything else (unset,
/// empty or unknown).
fn requested_cap(value: Option<&str>) -> Level {
    value
        .and_then(|v| Level::from_name(v.trim()))
        .unwrap_or(Level::Avx512)
}

#[cfg(test)]
pub(crate) mod coverage {
    //! Test plumbing: which levels a property test runs, said on stderr and held to
    //! `IDGREP_REQUIRE_SIMD`.

    use super::{Level, Simd};

    /// The levels of `paths` the CPU supports, for a test to run each of. Prints which it runs
    /// and which it skips, and why (`--nocapture` shows it). Panics when a level is skipped
    /// though the CPU has every feature it needs, and when `IDGREP_REQUIRE_SIMD` (names
    /// separated by commas) names one of `paths` that is skipped, so a CI machine can state
    /// what it must cover. `IDGREP_SIMD` does not narrow what the tests run.
    pub(crate) fn levels(test: &str, paths: &[Level]) -> Vec<Simd> {
        let mut ran = Vec::new();
        let mut skipped = Vec::new();
        for &level in paths {
            match Simd::supported(level) {
                Some(simd) => ran.push(simd),
                None => {
                    let missing = level.missing_features();
                    assert!(
                        !missing.is_empty(),
                        "{test}: skipped {} although the CPU has its features",
                        level.name()
                    );
                    skipped.push(format!(
                        "{} (CPU lacks {})",
                        level.name(),
                        missing.join(", ")
                    ));
                }
            }
        }
        let names: Vec<&str> = ran.iter().map(|s| s.level().name()).collect();
        let skipped = if skipped.is_empty() {
            String::new()
        } else {
            format!("; skipped {}", skipped.join(", "))
        };
        eprintln!("{test}: ran {}{skipped}", names.join(", "));
        for level in required() {
            assert!(
                !paths.contains(&level) || names.contains(&level.name()),
                "{test}: IDGREP_REQUIRE_SIMD lists {} but this CPU cannot run it",
                level.name()
            );
        }
        ran
    }

    /// The levels `IDGREP_REQUIRE_SIMD` lists; a name that is no level fails the test, so a
    /// typo cannot pass unnoticed.
    pub(crate) fn required() -> Vec<Level> {
        let Ok(list) = std::env::var("IDGREP_REQUIRE_SIMD") else {
            return Vec::new();
        };
        list.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(|name| {
                Level::from_name(name).unwrap_or_else(|| {
                    panic!("IDGREP_REQUIRE_SIMD: {name:?} is none of scalar, sse2, avx2, avx512")
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idgrep_simd_caps_the_level_by_name() {
        assert_eq!(requested_cap(None), Level::Avx512);
        assert_eq!(requested_cap(Some("")), Level::Avx512);
        assert_eq!(requested_cap(Some("neon")), Level::Avx512);
        for level in Level::ALL {
            assert_eq!(requested_cap(Some(level.name())), level);
            assert_eq!(Level::from_name(level.name()), Some(level));
        }
    }

    #[test]
    fn a_cap_never_picks_a_level_the_cpu_lacks() {
        for cap in Level::ALL {
            let simd = Simd::widest_up_to(cap);
            assert!(simd.level() <= cap);
            assert!(simd.level().missing_features().is_empty());
            // Nothing wider within the cap is supported.
            for level in Level::ALL {
                if level > simd.level() && level <= cap {
                    assert!(Simd::supported(level).is_none(), "{level:?} under {cap:?}");
                }
            }
        }
        assert_eq!(Simd::widest_up_to(Level::Scalar).level(), Level::Scalar);
    }
}
