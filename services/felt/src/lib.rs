//! The felt server: the table, seating, clock and payout services on one
//! event log, and the room display beside them ([`serve`]). The `felt`
//! binary starts them; the simulation, the audit and the benchmarks are
//! not part of this library (`felt sim`, the `felt-audit` crate,
//! `felt-bench`).

pub mod bags;
pub mod cage;
pub mod logs;
pub mod results;
pub mod serve;
pub mod telemetry;
