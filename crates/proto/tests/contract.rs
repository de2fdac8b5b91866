//! The public contract itself: what no request may carry.

use std::collections::{BTreeMap, BTreeSet};

use prost::Message;
use prost_types::{DescriptorProto, FileDescriptorSet};

/// Every message (nested ones too) by its full name, `.felt.v1.Message`.
fn messages<'a>(
    found: &'a [DescriptorProto],
    outer: &str,
    out: &mut BTreeMap<String, &'a DescriptorProto>,
) {
    for m in found {
        let name = format!("{outer}.{}", m.name());
        messages(&m.nested_type, &name, out);
        out.insert(name, m);
    }
}

/// Every field a caller can set in a request: the fields of each call's
/// request message and of every message they hold, as `Message.field`.
fn request_fields(set: &FileDescriptorSet) -> BTreeSet<String> {
    let mut all = BTreeMap::new();
    for file in &set.file {
        messages(
            &file.message_type,
            &format!(".{}", file.package()),
            &mut all,
        );
    }
    let mut todo: Vec<String> = set
        .file
        .iter()
        .flat_map(|f| &f.service)
        .flat_map(|s| &s.method)
        .map(|m| m.input_type().to_string())
        .collect();
    let mut seen = BTreeSet::new();
    let mut fields = BTreeSet::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(message) = all.get(&name) else {
            continue;
        };
        for f in &message.field {
            fields.insert(format!(
                "{}.{}",
                name.trim_start_matches(".felt.v1."),
                f.name()
            ));
            if !f.type_name().is_empty() {
                todo.push(f.type_name().to_string());
            }
        }
    }
    fields
}

/// Whoever chooses a deck's seed chooses its cards, and whoever chooses
/// the seat draw's seed chooses the seats: the services draw every seed
/// themselves, and no request takes one (events report the seeds drawn,
/// for audit).
#[test]
fn no_request_takes_a_seed() {
    let set = FileDescriptorSet::decode(felt_proto::FILE_DESCRIPTOR_SET).expect("the descriptors");
    let fields = request_fields(&set);
    assert!(fields.len() > 100, "only {} fields read", fields.len());
    assert!(fields.contains("BeginHandRequest.table"));
    assert!(fields.contains("StartHand.deal"), "{fields:?}");
    let seeds: Vec<&String> = fields
        .iter()
        .filter(|f| f.to_lowercase().contains("seed"))
        .collect();
    assert!(seeds.is_empty(), "fields that take a seed: {seeds:?}");
    // (What the services report is not a request: a hand's seed, once
    // revealed, is in its events.)
    assert!(!fields.contains("DealRecord.seed"));
}
