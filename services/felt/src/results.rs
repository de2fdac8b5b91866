//! A tournament's results as the payout service exports them and `felt
//! payout results` prints them: place, player, entry, prize and bounties,
//! best place first, as text, CSV or JSON.

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    Text,
    Csv,
    Json,
}

/// A CSV field, quoted where it must be. A field a spreadsheet would run
/// as a formula (opening with =, +, -, @, a tab or a carriage return:
/// OWASP's CSV injection) is written as text, after an apostrophe.
pub fn csv(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// Minor units (cents) as units and cents.
pub fn show(minor: u64) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

/// One line of the results.
#[derive(Debug, serde::Serialize)]
pub struct ResultRow {
    first: u32,
    last: u32,
    entry: felt_vocabulary::EntryId,
    player: String,
    name: String,
    prize: String,
    bounties: String,
}

/// The results in payout's order (best place first), with seating's names.
pub fn result_rows(
    payout: &felt_payout::PayoutState,
    seating: &felt_seating::SeatingState,
) -> Vec<ResultRow> {
    payout
        .results()
        .into_iter()
        .map(|(entry, e)| {
            let (first, last) = e.place.unwrap_or((0, 0));
            let name = seating
                .entries()
                .get(&entry)
                .map(|s| s.name.clone())
                .unwrap_or_default();
            ResultRow {
                first,
                last,
                entry,
                player: e.player.to_string(),
                name,
                prize: show(e.prize),
                bounties: show(e.bounties_won),
            }
        })
        .collect()
}

/// Why the results could not be written out.
#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("cannot write the results as JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot write the results: {0}")]
    Write(#[from] std::fmt::Error),
}

/// The results as text, CSV or JSON.
pub fn render_results(rows: &[ResultRow], format: Format) -> Result<String, ResultsError> {
    use std::fmt::Write;
    let mut out = String::new();
    match format {
        Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?,
        Format::Csv => {
            writeln!(out, "first,last,entry,player,name,prize,bounties")?;
            for r in rows {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{}",
                    r.first,
                    r.last,
                    r.entry,
                    csv(&r.player),
                    csv(&r.name),
                    r.prize,
                    r.bounties
                )?;
            }
        }
        Format::Text => {
            for r in rows {
                let place = if r.first == r.last {
                    r.first.to_string()
                } else {
                    format!("{}-{}", r.first, r.last)
                };
                writeln!(
                    out,
                    "{place:>11}  {:<20} entry {:<7} {:>14}  bounties {}",
                    r.name, r.entry, r.prize, r.bounties
                )?;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::csv;

    #[test]
    fn a_field_is_quoted_where_it_must_be() {
        assert_eq!(csv("Ana"), "Ana");
        assert_eq!(csv("Silva, Ana"), "\"Silva, Ana\"");
        assert_eq!(csv("Ana \"A\""), "\"Ana \"\"A\"\"\"");
    }

    /// A name a spreadsheet would run as a formula (OWASP's CSV
    /// injection: a field opening with =, +, -, @, a tab or a carriage
    /// return) is written as text, with a leading apostrophe.
    #[test]
    fn a_name_that_opens_like_a_formula_is_written_as_text() {
        assert_eq!(
            csv("=HYPERLINK(\"http://x\",\"win\")"),
            "\"'=HYPERLINK(\"\"http://x\"\",\"\"win\"\")\""
        );
        assert_eq!(csv("+55 11"), "'+55 11");
        assert_eq!(csv("-1"), "'-1");
        assert_eq!(csv("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv("\tx"), "'\tx");
        assert_eq!(csv("Ana-Maria"), "Ana-Maria");
    }
}
