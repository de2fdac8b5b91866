//! The published JSON Schema of a structure file (`structure_text` in
//! CreateTournament) is the one the parser's own types give: it cannot
//! drift from what `Structure::parse` accepts.

use std::path::PathBuf;

use felt_clock::Structure;

fn published() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../proto/structure.schema.json")
}

#[test]
fn the_published_schema_is_the_parsers_own() {
    let generated = Structure::json_schema();
    let text = serde_json::to_string_pretty(&generated).unwrap() + "\n";
    // (To publish a changed schema: FELT_WRITE_SCHEMA=1 cargo test -p
    // felt-clock --test schema.)
    if std::env::var_os("FELT_WRITE_SCHEMA").is_some() {
        std::fs::write(published(), &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(published()).expect("proto/structure.schema.json");
    let on_disk: serde_json::Value = serde_json::from_str(&on_disk).unwrap();
    assert_eq!(on_disk, generated, "proto/structure.schema.json is stale");
}

/// The schema says what a file must hold: a level's blinds and minutes,
/// a break's minutes, each period's kind.
#[test]
fn the_schema_names_what_a_file_must_hold() {
    let schema = Structure::json_schema();
    let required = |path: &[&str]| -> Vec<String> {
        let mut at = &schema;
        for step in path {
            at = &at[step];
        }
        let mut names: Vec<String> = at["required"]
            .as_array()
            .unwrap_or_else(|| panic!("{path:?} has required fields: {at}"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    assert_eq!(required(&[]), ["name", "periods", "starting_stack"]);
    let text = schema.to_string();
    for word in [
        "\"level\"",
        "\"break\"",
        "big_blind",
        "color_up",
        "BigBlind",
    ] {
        assert!(text.contains(word), "{word} in {text}");
    }
    // A preset, written out as a file, reads back as itself.
    let turbo = Structure::preset("turbo").unwrap();
    let file = serde_json::to_string(&turbo).unwrap();
    assert_eq!(Structure::parse(&file).unwrap(), turbo);
}
