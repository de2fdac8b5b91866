//! The bag list (bag and tag at a day's end) as a printable document: the
//! chip-count leaderboard, largest stack first, with each bag's number and
//! who confirmed its count.

use felt_proto::v1 as pb;
use serde::Serialize;

use crate::results::csv as field;

/// One bag, as the JSON export writes it.
#[derive(Serialize)]
struct Line<'a> {
    rank: u32,
    bag: u32,
    entry: u64,
    name: &'a str,
    chips: u64,
    table: u32,
    seat: u32,
    player_confirmed: bool,
    staff_confirmed: bool,
    /// The flight the bag is from, on an event's list (0: its own).
    flight: u32,
}

/// The whole list, as the JSON export writes it.
#[derive(Serialize)]
struct List<'a> {
    day: u32,
    sealed: bool,
    chips: u64,
    bags: Vec<Line<'a>>,
}

/// The list as CSV: a header, then one line per bag.
pub fn csv(bags: &pb::GetBagsResponse) -> String {
    let mut out = String::from(
        "rank,bag,entry,name,chips,table,seat,player_confirmed,staff_confirmed,flight\n",
    );
    for b in &bags.bags {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            b.rank,
            b.bag,
            b.entry,
            field(&b.name),
            b.chips,
            b.table,
            b.seat,
            b.player_confirmed,
            b.staff_confirmed,
            b.flight
        ));
    }
    out
}

/// The list as JSON: the day, whether sealed, the chips in all, the bags.
pub fn json(bags: &pb::GetBagsResponse) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(&List {
        day: bags.day,
        sealed: bags.sealed,
        chips: bags.chips,
        bags: bags
            .bags
            .iter()
            .map(|b| Line {
                rank: b.rank,
                bag: b.bag,
                entry: b.entry,
                name: &b.name,
                chips: b.chips,
                table: b.table,
                seat: b.seat,
                player_confirmed: b.player_confirmed,
                staff_confirmed: b.staff_confirmed,
                flight: b.flight,
            })
            .collect(),
    })
}
