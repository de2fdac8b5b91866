//! Ranks, suits and cards, with the usual two-character notation (`Ah`, `Td`, `2c`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::CardsError;

/// A card rank, deuce lowest, ace highest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Rank {
    Two = 0,
    Three,
    Four,
    Five,
    Six,
    Seven,
    Eight,
    Nine,
    Ten,
    Jack,
    Queen,
    King,
    Ace,
}

impl Rank {
    /// All ranks, lowest first.
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The rank with index 0 (deuce) to 12 (ace).
    pub fn from_index(i: u8) -> Option<Rank> {
        Rank::ALL.get(usize::from(i)).copied()
    }

    /// 0 for a deuce up to 12 for an ace.
    pub fn index(self) -> u8 {
        self as u8
    }

    /// The one-character symbol: `2`–`9`, `T`, `J`, `Q`, `K`, `A`.
    pub fn symbol(self) -> char {
        b"23456789TJQKA"[self as usize] as char
    }

    /// Parses a rank symbol, upper or lower case.
    pub fn from_symbol(c: char) -> Option<Rank> {
        let i = "23456789TJQKA".find(c.to_ascii_uppercase())?;
        Rank::from_index(i as u8)
    }

    /// The rank's name as a dealer says it: "queen".
    pub fn name(self) -> &'static str {
        [
            "deuce", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
            "queen", "king", "ace",
        ][self as usize]
    }

    /// The plural name: "queens", "sixes", "deuces".
    pub fn plural(self) -> &'static str {
        [
            "deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
            "jacks", "queens", "kings", "aces",
        ][self as usize]
    }
}

/// A card suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Suit {
    Clubs = 0,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    /// All suits, in the order clubs, diamonds, hearts, spades.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// 0 for clubs up to 3 for spades.
    pub fn index(self) -> u8 {
        self as u8
    }

    /// The suit with index 0 (clubs) to 3 (spades).
    pub fn from_index(i: u8) -> Option<Suit> {
        Suit::ALL.get(usize::from(i)).copied()
    }

    /// The one-character symbol: `c`, `d`, `h`, `s`.
    pub fn symbol(self) -> char {
        b"cdhs"[self as usize] as char
    }

    /// Parses a suit symbol, upper or lower case.
    pub fn from_symbol(c: char) -> Option<Suit> {
        let i = "cdhs".find(c.to_ascii_lowercase())?;
        Suit::from_index(i as u8)
    }
}

/// One of the 52 cards. Internally `rank * 4 + suit`, so cards order by rank
/// first; use [`Card::index`] for a dense 0..52 index.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// The card of this rank and suit.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(rank as u8 * 4 + suit as u8)
    }

    /// The card with dense index 0..52 (`rank * 4 + suit`).
    pub fn from_index(i: u8) -> Option<Card> {
        (i < 52).then_some(Card(i))
    }

    /// Dense index 0..52: `rank * 4 + suit`.
    pub const fn index(self) -> u8 {
        self.0
    }

    pub fn rank(self) -> Rank {
        Rank::ALL[usize::from(self.0 >> 2)]
    }

    pub fn suit(self) -> Suit {
        Suit::ALL[usize::from(self.0 & 3)]
    }

    /// All 52 cards, deuce of clubs first, ace of spades last.
    pub fn all() -> impl Iterator<Item = Card> {
        (0..52).map(Card)
    }

    /// Parses a run of cards written together or apart: `"AhKd"`, `"Ah Kd"`,
    /// `"Ah,Kd"`. Ranks and suits are case-insensitive and `10` is read as `T`.
    pub fn parse_many(s: &str) -> Result<Vec<Card>, CardsError> {
        let chars: Vec<char> = s
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ',')
            .collect();
        let mut cards = Vec::with_capacity(chars.len() / 2);
        let mut i = 0;
        while i < chars.len() {
            let len = if chars[i] == '1' && chars.get(i + 1) == Some(&'0') {
                3
            } else {
                2
            };
            let text: String = chars[i..(i + len).min(chars.len())].iter().collect();
            cards.push(text.parse()?);
            i += len;
        }
        Ok(cards)
    }
}

impl FromStr for Card {
    type Err = CardsError;

    fn from_str(s: &str) -> Result<Card, CardsError> {
        let bad = |reason: String| CardsError::InvalidCard {
            input: s.to_string(),
            reason,
        };
        let (rank_text, suit_char) = match s.char_indices().last() {
            Some((i, c)) if i > 0 => (&s[..i], c),
            _ => return Err(bad("expected a rank and a suit, as in Ah or Td".into())),
        };
        let rank = match rank_text {
            "10" => Rank::Ten,
            t if t.chars().count() == 1 => {
                let c = t.chars().next().unwrap_or(' ');
                Rank::from_symbol(c).ok_or_else(|| {
                    bad(format!(
                        "unknown rank '{c}' (expected one of 23456789TJQKA)"
                    ))
                })?
            }
            t => {
                return Err(bad(format!(
                    "unknown rank '{t}' (expected one of 23456789TJQKA)"
                )));
            }
        };
        let suit = Suit::from_symbol(suit_char)
            .ok_or_else(|| bad(format!("unknown suit '{suit_char}' (expected one of cdhs)")))?;
        Ok(Card::new(rank, suit))
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank().symbol(), self.suit().symbol())
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

/// Cards are stored as their two-character text (`"Ah"`): readable in any
/// event dump and independent of the internal numbering.
impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 2];
        buf[0] = self.rank().symbol() as u8;
        buf[1] = self.suit().symbol() as u8;
        s.serialize_str(std::str::from_utf8(&buf).map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Card;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a card such as \"Ah\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Card, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_card() {
        for card in Card::all() {
            let text = card.to_string();
            assert_eq!(text.len(), 2);
            assert_eq!(text.parse::<Card>().unwrap(), card);
        }
        assert_eq!(Card::all().count(), 52);
    }

    #[test]
    fn accepts_lower_case_and_ten() {
        assert_eq!(
            "ah".parse::<Card>().unwrap(),
            Card::new(Rank::Ace, Suit::Hearts)
        );
        assert_eq!(
            "10d".parse::<Card>().unwrap(),
            Card::new(Rank::Ten, Suit::Diamonds)
        );
        assert_eq!(
            "TD".parse::<Card>().unwrap(),
            Card::new(Rank::Ten, Suit::Diamonds)
        );
    }

    #[test]
    fn errors_name_the_bad_input() {
        let err = "Xh".parse::<Card>().unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid card \"Xh\": unknown rank 'X' (expected one of 23456789TJQKA)"
        );
        let err = "Ax".parse::<Card>().unwrap_err().to_string();
        assert_eq!(
            err,
            "invalid card \"Ax\": unknown suit 'x' (expected one of cdhs)"
        );
        let err = "A".parse::<Card>().unwrap_err().to_string();
        assert!(err.contains("\"A\""), "{err}");
        assert!("".parse::<Card>().is_err());
        assert!("Ahh".parse::<Card>().is_err());
    }

    #[test]
    fn parses_runs_of_cards() {
        let cards = Card::parse_many("AhKd 10c, 2s").unwrap();
        let text: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
        assert_eq!(text, ["Ah", "Kd", "Tc", "2s"]);
        assert!(Card::parse_many("AhK").is_err());
    }

    #[test]
    fn orders_by_rank_then_suit() {
        let two_spades: Card = "2s".parse().unwrap();
        let three_clubs: Card = "3c".parse().unwrap();
        assert!(two_spades < three_clubs);
        assert_eq!(three_clubs.rank(), Rank::Three);
        assert_eq!(two_spades.suit(), Suit::Spades);
    }
}
