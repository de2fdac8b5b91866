//! felt's gRPC contracts, generated from `proto/felt/v1`. Domain types are
//! not these: conversions live at each service's edge.

#![allow(missing_debug_implementations, unreachable_pub, clippy::all)]

/// `felt.v1`.
pub mod v1 {
    tonic::include_proto!("felt.v1");
}

/// The encoded file descriptor set, for gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("felt_descriptor");

/// The protobuf runtime the messages are built on (to encode one, e.g. for
/// a request's fingerprint), at the version they were generated for.
pub use prost;
