//! Compiles proto/felt/v1 with protox (a protobuf compiler in Rust, so no
//! protoc is needed) and tonic-prost-build, and keeps the encoded file
//! descriptor set for gRPC reflection.

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let files = [
        "felt/v1/table.proto",
        "felt/v1/clock.proto",
        "felt/v1/seating.proto",
        "felt/v1/payout.proto",
        "felt/v1/webhook.proto",
    ];
    for f in files {
        println!("cargo:rerun-if-changed={}", root.join(f).display());
    }
    let fds = protox::compile(files, [&root])?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("felt_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}
