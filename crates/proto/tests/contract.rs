//! The public contract itself: what no message may carry.

use prost::Message;
use prost_types::{DescriptorProto, FileDescriptorSet};

/// Every field of every message (nested ones too), as `Message.field`.
fn fields(messages: &[DescriptorProto], outer: &str, out: &mut Vec<String>) {
    for m in messages {
        let name = format!("{outer}{}", m.name());
        for f in &m.field {
            out.push(format!("{name}.{}", f.name()));
        }
        fields(&m.nested_type, &format!("{name}."), out);
    }
}

/// Whoever chooses a deck's seed chooses its cards, and whoever chooses
/// the seat draw's seed chooses the seats: the services draw every seed
/// themselves, and no request (nor any other message) takes one.
#[test]
fn no_field_takes_a_seed() {
    let set = FileDescriptorSet::decode(felt_proto::FILE_DESCRIPTOR_SET).expect("the descriptors");
    let mut all = Vec::new();
    for file in &set.file {
        fields(&file.message_type, "", &mut all);
    }
    assert!(all.len() > 100, "only {} fields read", all.len());
    assert!(all.iter().any(|f| f == "BeginHandRequest.table"));
    let seeds: Vec<&String> = all
        .iter()
        .filter(|f| f.to_lowercase().contains("seed"))
        .collect();
    assert!(seeds.is_empty(), "fields that take a seed: {seeds:?}");
}
