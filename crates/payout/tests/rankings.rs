//! Series rankings: points by place, event factors, attendance.

use felt_payout::{EventResult, PointsTable, leaderboard};

#[test]
fn factors_multiply_place_points_but_not_attendance() {
    let table = PointsTable {
        by_place: vec![100, 60, 30],
        attendance: 5,
    };
    // Seed 002: the Main Event Light counts 1.4, the High Rollers 2.
    assert_eq!(table.points(1, 1000), 10_500);
    assert_eq!(table.points(1, 1400), 14_500);
    assert_eq!(table.points(3, 2000), 6_500);
    // Out of the points: attendance only.
    assert_eq!(table.points(9, 2000), 500);
}

#[test]
fn the_leaderboard_sums_events_and_counts_a_re_entry_once() {
    let table = PointsTable {
        by_place: vec![100, 60, 30],
        attendance: 5,
    };
    let events = vec![
        EventResult {
            name: "Tuesday".into(),
            factor_milli: 1000,
            places: vec![
                ("ana".parse().unwrap(), 1),
                ("bia".parse().unwrap(), 2),
                ("caio".parse().unwrap(), 3),
            ],
        },
        EventResult {
            name: "High Rollers".into(),
            factor_milli: 2000,
            // bia re-entered: her best place counts, once.
            places: vec![
                ("caio".parse().unwrap(), 1),
                ("bia".parse().unwrap(), 7),
                ("bia".parse().unwrap(), 2),
                ("ana".parse().unwrap(), 4),
            ],
        },
    ];
    let board = leaderboard(&table, &events).unwrap();
    let rows: Vec<(&str, u64, u32)> = board
        .iter()
        .map(|s| (s.player.as_str(), s.points, s.events))
        .collect();
    assert_eq!(
        rows,
        vec![
            ("caio", 3_500 + 20_500, 2),
            ("bia", 6_500 + 12_500, 2),
            ("ana", 10_500 + 500, 2)
        ]
    );
    let bad = vec![EventResult {
        name: "x".into(),
        factor_milli: 0,
        places: vec![],
    }];
    assert_eq!(
        leaderboard(&table, &bad).unwrap_err().to_string(),
        "invalid payout structure: event x: the factor must be positive"
    );
}
