//! Blind structures: levels and breaks, the built-in presets, loading from
//! TOML or JSON, and validation with errors that name the level.

use felt_vocabulary::{AnteFormat, Chips, Level, MAX_CHIPS};
use serde::{Deserialize, Serialize};

use crate::ClockError;

/// One level of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LevelSpec {
    pub small_blind: Chips,
    pub big_blind: Chips,
    #[serde(default)]
    pub ante: Chips,
    #[serde(default)]
    pub ante_format: AnteFormat,
    /// Minutes of play.
    pub minutes: u32,
    /// The smallest chip in play (0 in a file: the previous level's, or
    /// the largest common denomination of the first level).
    #[serde(default)]
    pub smallest_chip: Chips,
}

impl LevelSpec {
    /// The level as the table engine plays it.
    pub fn level(&self) -> Level {
        Level {
            small_blind: self.small_blind,
            big_blind: self.big_blind,
            ante: self.ante,
            ante_format: self.ante_format,
            smallest_chip: self.smallest_chip,
        }
    }
}

/// A break, with an optional colour-up of the smallest chip (chip race, TDA 24).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BreakSpec {
    pub minutes: u32,
    /// The chip raced off at this break (it must be the smallest in play).
    #[serde(default)]
    pub color_up: Option<Chips>,
}

/// A level or a break, in the order they are played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Period {
    Level(LevelSpec),
    Break(BreakSpec),
}

impl Period {
    pub fn millis(&self) -> i64 {
        let minutes = match self {
            Period::Level(l) => l.minutes,
            Period::Break(b) => b.minutes,
        };
        i64::from(minutes) * 60_000
    }
}

/// A tournament's structure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Structure {
    pub name: String,
    pub starting_stack: Chips,
    pub periods: Vec<Period>,
}

/// Chip denominations, for choosing a preset's smallest chip.
const DENOMINATIONS: [Chips; 9] = [
    25, 100, 500, 1_000, 5_000, 25_000, 100_000, 500_000, 1_000_000,
];

impl Structure {
    /// The level numbers (1-based) of each period; `None` for breaks.
    pub fn level_number(&self, period: usize) -> Option<u32> {
        match self.periods.get(period)? {
            Period::Break(_) => None,
            Period::Level(_) => Some(
                self.periods[..=period]
                    .iter()
                    .filter(|p| matches!(p, Period::Level(_)))
                    .count() as u32,
            ),
        }
    }

    /// The period index of a level number (1-based).
    pub fn period_of_level(&self, level: u32) -> Option<usize> {
        (0..self.periods.len()).find(|&i| self.level_number(i) == Some(level))
    }

    pub fn levels(&self) -> u32 {
        self.periods
            .iter()
            .filter(|p| matches!(p, Period::Level(_)))
            .count() as u32
    }

    /// The JSON Schema of a structure file (TOML has the same shape), as
    /// `proto/structure.schema.json` publishes it for `structure_text`.
    pub fn json_schema() -> serde_json::Value {
        serde_json::to_value(schemars::schema_for!(Structure)).unwrap_or_default()
    }

    /// Parses a structure from TOML or JSON (chosen by the first
    /// non-blank character: `{` is JSON) and validates it. Smallest chips
    /// left out (0) are filled in: the previous level's, or for the first
    /// level the largest denomination dividing its blinds and ante.
    pub fn parse(text: &str) -> Result<Structure, ClockError> {
        let mut s: Structure = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| ClockError::Parse {
                reason: e.to_string(),
            })?
        } else {
            toml::from_str(text).map_err(|e| ClockError::Parse {
                reason: e.to_string(),
            })?
        };
        s.fill_smallest_chips();
        s.validate()?;
        Ok(s)
    }

    /// A structure from its periods, as a director sends them: smallest
    /// chips left out (0) are filled in as [`Structure::parse`] fills
    /// them, then the whole is validated.
    pub fn new(
        name: String,
        starting_stack: Chips,
        periods: Vec<Period>,
    ) -> Result<Structure, ClockError> {
        let mut s = Structure {
            name,
            starting_stack,
            periods,
        };
        s.fill_smallest_chips();
        s.validate()?;
        Ok(s)
    }

    /// Fills in each level's smallest chip left out (0): the previous
    /// level's (after a colour-up of it, the next denomination up), or for
    /// the first level the largest denomination dividing its blinds and ante.
    fn fill_smallest_chips(&mut self) {
        let s = self;
        let mut smallest = 0;
        let mut pending_color_up = None;
        for p in &mut s.periods {
            match p {
                Period::Break(b) => pending_color_up = b.color_up,
                Period::Level(l) => {
                    if l.smallest_chip == 0 {
                        l.smallest_chip = if smallest == 0 {
                            largest_dividing(&[*l])
                        } else if let Some(raced) = pending_color_up.filter(|&c| c == smallest) {
                            // After a colour-up the next denomination up.
                            DENOMINATIONS
                                .iter()
                                .copied()
                                .find(|&d| d > raced && divides(d, l))
                                .unwrap_or(smallest)
                        } else {
                            smallest
                        };
                    }
                    smallest = l.smallest_chip;
                    pending_color_up = None;
                }
            }
        }
    }

    /// Checks the structure; the error names the level (or break) at fault.
    pub fn validate(&self) -> Result<(), ClockError> {
        let bad = |what: String, reason: String| Err(ClockError::InvalidStructure { what, reason });
        if self.starting_stack == 0 {
            return bad(
                "the structure".into(),
                "the starting stack must be positive".into(),
            );
        }
        if self.levels() == 0 {
            return bad("the structure".into(), "it has no levels".into());
        }
        let mut previous: Option<(u32, LevelSpec)> = None;
        let mut color_up: Option<(usize, Chips)> = None;
        let mut number = 0;
        for (i, period) in self.periods.iter().enumerate() {
            match period {
                Period::Break(b) => {
                    if b.minutes == 0 {
                        return bad(
                            format!("the break after level {number}"),
                            "its duration must be positive".into(),
                        );
                    }
                    if let Some(chip) = b.color_up {
                        let smallest = previous.map_or(0, |p| p.1.smallest_chip);
                        if chip != smallest {
                            return bad(
                                format!("the break after level {number}"),
                                format!(
                                    "it colours up the {chip} chip, but the smallest chip in play is {smallest}"
                                ),
                            );
                        }
                        color_up = Some((i, chip));
                    }
                }
                Period::Level(l) => {
                    number += 1;
                    let what = format!("level {number}");
                    if l.minutes == 0 {
                        return bad(what, "its duration must be positive".into());
                    }
                    if l.big_blind > MAX_CHIPS || l.ante > MAX_CHIPS {
                        return bad(
                            what,
                            format!(
                                "a blind or ante is at most the {} chips a table holds",
                                MAX_CHIPS
                            ),
                        );
                    }
                    if l.small_blind == 0 || l.small_blind > l.big_blind {
                        return bad(
                            what,
                            format!(
                                "small blind {} must be positive and at most the big blind {}",
                                l.small_blind, l.big_blind
                            ),
                        );
                    }
                    match (l.ante_format, l.ante) {
                        (AnteFormat::None, 0) => {}
                        (AnteFormat::None, a) => {
                            return bad(what, format!("an ante of {a} needs an ante format"));
                        }
                        (_, 0) => return bad(what, "an ante format needs an ante".into()),
                        (AnteFormat::PerPlayer, a) if a > l.big_blind => {
                            return bad(
                                what,
                                format!(
                                    "a per-player ante of {a} is more than the big blind {}",
                                    l.big_blind
                                ),
                            );
                        }
                        (AnteFormat::BigBlind, a) if a > 2 * l.big_blind => {
                            return bad(
                                what,
                                format!("a big-blind ante of {a} is more than two big blinds"),
                            );
                        }
                        _ => {}
                    }
                    if l.smallest_chip == 0 || !divides(l.smallest_chip, l) {
                        return bad(
                            what,
                            format!(
                                "the smallest chip {} does not divide its blinds and ante",
                                l.smallest_chip
                            ),
                        );
                    }
                    if let Some((n, p)) = previous {
                        if l.big_blind <= p.big_blind {
                            return bad(
                                what,
                                format!(
                                    "big blind {} does not increase on level {n}'s {}",
                                    l.big_blind, p.big_blind
                                ),
                            );
                        }
                        if l.small_blind < p.small_blind {
                            return bad(
                                what,
                                format!(
                                    "small blind {} is below level {n}'s {}",
                                    l.small_blind, p.small_blind
                                ),
                            );
                        }
                        if l.smallest_chip < p.smallest_chip {
                            return bad(
                                what,
                                format!(
                                    "the smallest chip {} is below level {n}'s {}",
                                    l.smallest_chip, p.smallest_chip
                                ),
                            );
                        }
                        if l.smallest_chip > p.smallest_chip && color_up.is_none() {
                            return bad(
                                what,
                                format!(
                                    "the smallest chip goes from {} to {} without a colour-up at a break",
                                    p.smallest_chip, l.smallest_chip
                                ),
                            );
                        }
                    }
                    if let Some((_, chip)) = color_up
                        && l.smallest_chip <= chip
                    {
                        return bad(
                            what,
                            format!(
                                "the {chip} chip was coloured up, but it is still the smallest chip"
                            ),
                        );
                    }
                    color_up = None;
                    previous = Some((number, *l));
                }
            }
        }
        Ok(())
    }

    /// Seed 003's club structure (BHPoker): 6,000 chips, 23 levels, 20
    /// minutes to level 9 and 15 after, breaks of 10 minutes after levels
    /// 6 and 17 (colouring up the 25 and then the 100 chips). No antes.
    pub fn bhpoker() -> Structure {
        let blinds: [(Chips, Chips, u32); 23] = [
            (25, 50, 20),
            (50, 100, 20),
            (75, 150, 20),
            (100, 200, 20),
            (125, 250, 20),
            (150, 300, 20),
            (200, 400, 20),
            (300, 600, 20),
            (400, 800, 20),
            (500, 1_000, 15),
            (600, 1_200, 15),
            (800, 1_600, 15),
            (1_000, 2_000, 15),
            (1_200, 2_400, 15),
            (1_500, 3_000, 15),
            (2_000, 4_000, 15),
            (2_500, 5_000, 15),
            (3_000, 6_000, 15),
            (4_000, 8_000, 15),
            (5_000, 10_000, 15),
            (6_000, 12_000, 15),
            (8_000, 16_000, 15),
            (10_000, 20_000, 15),
        ];
        build(
            "BHPoker (seed 003)",
            6_000,
            &blinds,
            AnteFormat::None,
            &[6, 17],
            10,
        )
    }

    /// A typical big-field Main Event: 60,000 chips, two-hour levels, a
    /// big-blind ante equal to the big blind from level 1, a 20-minute
    /// break every two levels.
    pub fn main_event() -> Structure {
        let ladder = ladder(120);
        let breaks: Vec<u32> = (2..ladder.len() as u32).step_by(2).collect();
        build(
            "Main Event",
            60_000,
            &ladder,
            AnteFormat::BigBlind,
            &breaks,
            20,
        )
    }

    /// A turbo: 20,000 chips, 15-minute levels with a big-blind ante, a
    /// 10-minute break every eight levels.
    pub fn turbo() -> Structure {
        let ladder = ladder(15);
        let breaks: Vec<u32> = (8..ladder.len() as u32).step_by(8).collect();
        build("Turbo", 20_000, &ladder, AnteFormat::BigBlind, &breaks, 10)
    }

    /// A preset by name: `bhpoker`, `main-event`, `turbo`.
    pub fn preset(name: &str) -> Result<Structure, ClockError> {
        match name {
            "bhpoker" | "club" => Ok(Structure::bhpoker()),
            "main-event" | "main" => Ok(Structure::main_event()),
            "turbo" => Ok(Structure::turbo()),
            _ => Err(ClockError::NoSuchPreset { name: name.into() }),
        }
    }
}

/// The blind ladder of the big-field presets: 100/200 up to 1M/2M.
fn ladder(minutes: u32) -> Vec<(Chips, Chips, u32)> {
    let bigs: [Chips; 40] = [
        200, 300, 400, 500, 600, 800, 1_000, 1_200, 1_500, 2_000, 2_500, 3_000, 4_000, 5_000,
        6_000, 8_000, 10_000, 12_000, 15_000, 20_000, 25_000, 30_000, 40_000, 50_000, 60_000,
        80_000, 100_000, 120_000, 150_000, 200_000, 250_000, 300_000, 400_000, 500_000, 600_000,
        800_000, 1_000_000, 1_200_000, 1_500_000, 2_000_000,
    ];
    bigs.iter()
        .map(|&bb| {
            // The small blind: half, or the nearest lower multiple of 100.
            let sb = if bb.is_multiple_of(200) {
                bb / 2
            } else {
                (bb / 2) / 100 * 100
            };
            (sb, bb, minutes)
        })
        .collect()
}

fn divides(d: Chips, l: &LevelSpec) -> bool {
    l.small_blind.is_multiple_of(d) && l.big_blind.is_multiple_of(d) && l.ante.is_multiple_of(d)
}

/// The largest denomination dividing the blinds and antes of every level.
fn largest_dividing(levels: &[LevelSpec]) -> Chips {
    DENOMINATIONS
        .iter()
        .rev()
        .copied()
        .find(|&d| levels.iter().all(|l| divides(d, l)))
        .unwrap_or(1)
}

/// Builds a preset: breaks after the given level numbers; each stretch
/// between breaks plays with the largest denomination that divides all of
/// its levels and every later one, so the smallest chip only grows, at a
/// break, which colours up the chip taken out.
fn build(
    name: &str,
    starting_stack: Chips,
    blinds: &[(Chips, Chips, u32)],
    ante_format: AnteFormat,
    breaks_after: &[u32],
    break_minutes: u32,
) -> Structure {
    let specs: Vec<LevelSpec> = blinds
        .iter()
        .map(|&(sb, bb, minutes)| LevelSpec {
            small_blind: sb,
            big_blind: bb,
            ante: if ante_format == AnteFormat::None {
                0
            } else {
                bb
            },
            ante_format,
            minutes,
            smallest_chip: 0,
        })
        .collect();
    let mut periods = Vec::new();
    let mut smallest = 0;
    let mut stretch_start = 0;
    for (i, spec) in specs.iter().enumerate() {
        let number = i as u32 + 1;
        if i == stretch_start {
            let chip = largest_dividing(&specs[i..]).max(smallest);
            if smallest != 0 && chip > smallest {
                // The break just pushed colours up the old smallest chip.
                if let Some(Period::Break(b)) = periods.last_mut() {
                    b.color_up = Some(smallest);
                }
            }
            smallest = chip;
        }
        periods.push(Period::Level(LevelSpec {
            smallest_chip: smallest,
            ..*spec
        }));
        if breaks_after.contains(&number) && i + 1 < specs.len() {
            periods.push(Period::Break(BreakSpec {
                minutes: break_minutes,
                color_up: None,
            }));
            stretch_start = i + 1;
        }
    }
    Structure {
        name: name.into(),
        starting_stack,
        periods,
    }
}
