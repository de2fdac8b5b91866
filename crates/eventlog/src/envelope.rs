//! The versioned envelope and its hash chain.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{LogError, StreamId};

/// A SHA-256 digest. Stored as 32 bytes (MessagePack bin); a sequence of
/// 32 numbers, as envelope format 1 stored it, is read too.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Hash(pub [u8; 32]);

impl Serialize for Hash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Hash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Hash, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Hash;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a SHA-256 digest of 32 bytes")
            }

            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Hash, E> {
                v.try_into()
                    .map(Hash)
                    .map_err(|_| E::invalid_length(v.len(), &self))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Hash, A::Error> {
                let mut out = [0u8; 32];
                for (i, b) in out.iter_mut().enumerate() {
                    *b = seq
                        .next_element()?
                        .ok_or_else(|| serde::de::Error::invalid_length(i, &self))?;
                }
                if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(serde::de::Error::invalid_length(33, &self));
                }
                Ok(Hash(out))
            }
        }
        d.deserialize_bytes(Visitor)
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({self})")
    }
}

/// One stored event with everything an auditor needs to place it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    /// The version of the payload's schema for this event type.
    pub schema_version: u16,
    pub event_type: String,
    pub stream: StreamId,
    /// 1 for the stream's first event.
    pub sequence: u64,
    pub command_id: String,
    pub causation_id: Option<String>,
    pub correlation_id: Option<String>,
    /// Milliseconds since the Unix epoch, as handed in with the decision.
    pub recorded_at: i64,
    /// The hash of the stream's previous envelope (zero for the first).
    pub prev_hash: Hash,
    /// The event, MessagePack with field names.
    #[serde(with = "serde_bytes")]
    pub payload: Vec<u8>,
    /// The fingerprint of the request that brought the decision, as the
    /// service that took it computed it: the same command id sent again
    /// with another request is told so instead of answered. Not in the
    /// hash (it says nothing of the game); absent in envelopes stored
    /// before it was kept, and stored only when present, so those read and
    /// hash as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Hash>,
    /// The person whose command brought the decision (their id as their
    /// credential names them), when a person's: in the hash, so the audit
    /// proves who did what. Absent in envelopes stored before people were
    /// named, which hash as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

/// An envelope as format 3 stores it: every field in place, the optional
/// ones as nil when absent (a reader of formats 1 and 2 reads the missing
/// trailing ones as absent).
#[derive(Serialize)]
struct Stored<'a> {
    schema_version: u16,
    event_type: &'a str,
    stream: &'a StreamId,
    sequence: u64,
    command_id: &'a str,
    causation_id: &'a Option<String>,
    correlation_id: &'a Option<String>,
    recorded_at: i64,
    prev_hash: Hash,
    #[serde(with = "serde_bytes")]
    payload: &'a [u8],
    request: Option<Hash>,
    actor: &'a Option<String>,
}

impl<'a> From<&'a Envelope> for Stored<'a> {
    fn from(e: &'a Envelope) -> Stored<'a> {
        Stored {
            schema_version: e.schema_version,
            event_type: &e.event_type,
            stream: &e.stream,
            sequence: e.sequence,
            command_id: &e.command_id,
            causation_id: &e.causation_id,
            correlation_id: &e.correlation_id,
            recorded_at: e.recorded_at,
            prev_hash: e.prev_hash,
            payload: &e.payload,
            request: e.request,
            actor: &e.actor,
        }
    }
}

impl Envelope {
    /// SHA-256 over the envelope's fields in a fixed order (MessagePack of
    /// the tuple: stream key, sequence, event type, schema version, command,
    /// causation and correlation ids, recorded time, previous hash, payload,
    /// and the actor when there is one).
    pub fn hash(&self) -> Hash {
        let fields = (
            self.stream.key(),
            self.sequence,
            &self.event_type,
            self.schema_version,
            &self.command_id,
            &self.causation_id,
            &self.correlation_id,
            self.recorded_at,
            self.prev_hash.0,
            serde_bytes::Bytes::new(&self.payload),
        );
        let mut h = Sha256::new();
        // Encoding a tuple of plain values into a Vec cannot fail.
        match &self.actor {
            None => h.update(rmp_serde::to_vec(&fields).unwrap_or_default()),
            Some(actor) => h.update(rmp_serde::to_vec(&(fields, actor)).unwrap_or_default()),
        }
        Hash(h.finalize().into())
    }

    /// Decodes the payload as it is stored. Newer fields the type does not
    /// know are skipped.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, LogError> {
        rmp_serde::from_slice(&self.payload).map_err(|e| LogError::Decode {
            what: format!(
                "{} v{} at {} #{}",
                self.event_type, self.schema_version, self.stream, self.sequence
            ),
            reason: e.to_string(),
        })
    }

    /// Encodes a decision's envelopes for storage: a format byte, then the
    /// envelopes as MessagePack arrays (compact and quick to read back; the
    /// payloads inside keep their field names). A new envelope layout gets
    /// a new format byte, and readers keep reading the old ones.
    pub fn encode_all(envelopes: &[Envelope]) -> Result<Vec<u8>, LogError> {
        let mut out = vec![FORMAT];
        let stored: Vec<Stored<'_>> = envelopes.iter().map(Stored::from).collect();
        rmp_serde::encode::write(&mut out, &stored).map_err(|e| LogError::Encode(e.to_string()))?;
        Ok(out)
    }

    pub fn decode_all(bytes: &[u8]) -> Result<Vec<Envelope>, LogError> {
        let bad = |reason: String| LogError::Decode {
            what: "envelopes".into(),
            reason,
        };
        match bytes.split_first() {
            // Format 1 differs only in storing hashes as 32 numbers, which
            // `Hash` reads as well; format 2 only in leaving out the
            // trailing fields when absent (read as absent).
            Some((&(FORMAT | 1 | 2), rest)) => {
                rmp_serde::from_slice(rest).map_err(|e| bad(e.to_string()))
            }
            Some((other, _)) => Err(bad(format!("unknown envelope format {other}"))),
            None => Err(bad("empty".into())),
        }
    }
}

/// The envelope layout `encode_all` writes: 3 since every field is in
/// place, the actor among them (format 2 left absent trailing fields out;
/// format 1 stored hashes as 32 numbers, slower to read).
const FORMAT: u8 = 3;

/// Where a stream's hash chain breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stream {stream}: event {sequence} {reason}")]
pub struct ChainBreak {
    pub stream: String,
    pub sequence: u64,
    pub reason: String,
}

/// Walks a stream's envelopes from its first and reports the first one that
/// does not follow: a sequence out of place or a previous hash that is not
/// the hash of the envelope before it.
pub fn verify_chain(envelopes: &[Envelope]) -> Result<(), ChainBreak> {
    let mut prev = Hash::default();
    for (i, env) in envelopes.iter().enumerate() {
        let expected = i as u64 + 1;
        let brk = |reason: String| ChainBreak {
            stream: env.stream.to_string(),
            sequence: env.sequence,
            reason,
        };
        if env.sequence != expected {
            return Err(brk(format!("is out of place: expected event {expected}")));
        }
        if env.prev_hash != prev {
            return Err(brk(format!(
                "does not follow: its previous hash is {}, the event before hashes to {prev}",
                env.prev_hash
            )));
        }
        prev = env.hash();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Decision, NewEvent, envelopes_for};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct SeatedV1 {
        seat: u8,
        stack: u64,
    }

    /// `SeatedV1` with a field added as the rule for changing an event
    /// allows: with a default.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct SeatedV2 {
        seat: u8,
        stack: u64,
        #[serde(default)]
        nickname: String,
    }

    fn envelope(event: NewEvent) -> Envelope {
        let stream = crate::StreamId::new("t", "table", "1").unwrap();
        let decision = Decision {
            command_id: "c".into(),
            causation_id: None,
            correlation_id: None,
            recorded_at: 0,
            events: vec![event],
            trace: None,
            request: None,
            actor: None,
        };
        envelopes_for(&stream, 0, Hash::default(), &decision).remove(0)
    }

    #[test]
    fn an_older_reader_skips_fields_it_does_not_know() {
        let newer = NewEvent::encode(
            "Seated",
            2,
            &SeatedV2 {
                seat: 3,
                stack: 500,
                nickname: "Ivey".into(),
            },
        )
        .unwrap();
        assert_eq!(
            envelope(newer).decode::<SeatedV1>(),
            Ok(SeatedV1 {
                seat: 3,
                stack: 500
            })
        );
    }

    #[test]
    fn a_newer_reader_reads_an_older_event_with_the_added_fields_default() {
        let older = NewEvent::encode(
            "Seated",
            1,
            &SeatedV1 {
                seat: 3,
                stack: 500,
            },
        )
        .unwrap();
        assert_eq!(
            envelope(older).decode::<SeatedV2>(),
            Ok(SeatedV2 {
                seat: 3,
                stack: 500,
                nickname: String::new(),
            })
        );
    }

    /// A request's fingerprint is kept with its envelope and read back; it
    /// is no part of the hash, and an envelope without one is stored (and
    /// hashed) exactly as before fingerprints were kept.
    #[test]
    fn a_request_fingerprint_is_kept_outside_the_hash() {
        let plain =
            envelope(NewEvent::encode("Seated", 1, &SeatedV1 { seat: 2, stack: 70 }).unwrap());
        let mut fingerprinted = plain.clone();
        fingerprinted.request = Some(Hash([9; 32]));
        assert_eq!(fingerprinted.hash(), plain.hash());
        let stored = Envelope::encode_all(std::slice::from_ref(&fingerprinted)).unwrap();
        assert_eq!(Envelope::decode_all(&stored), Ok(vec![fingerprinted]));
        let without = Envelope::encode_all(std::slice::from_ref(&plain)).unwrap();
        // (32 bytes and two of MessagePack's bin header, where a nil was.)
        assert_eq!(stored.len(), without.len() + 33);
        assert_eq!(Envelope::decode_all(&without), Ok(vec![plain]));
    }

    /// The person whose command it was is kept with the envelope and is in
    /// its hash: changing who did it breaks the chain. An envelope without
    /// one hashes as before people were named.
    #[test]
    fn the_actor_is_kept_and_in_the_hash() {
        let plain =
            envelope(NewEvent::encode("Seated", 1, &SeatedV1 { seat: 2, stack: 70 }).unwrap());
        let mut by_ana = plain.clone();
        by_ana.actor = Some("ana".into());
        assert_ne!(by_ana.hash(), plain.hash());
        let mut by_bia = plain.clone();
        by_bia.actor = Some("bia".into());
        assert_ne!(by_ana.hash(), by_bia.hash());
        // Without a request's fingerprint too: each field in its place.
        let stored = Envelope::encode_all(&[by_ana.clone(), plain.clone()]).unwrap();
        assert_eq!(Envelope::decode_all(&stored), Ok(vec![by_ana, plain]));
    }

    /// Format 2 left absent trailing fields out: its envelopes read as
    /// they were written.
    #[test]
    fn envelopes_stored_in_format_two_are_read_as_they_were_written() {
        let plain =
            envelope(NewEvent::encode("Seated", 1, &SeatedV1 { seat: 2, stack: 70 }).unwrap());
        let mut fingerprinted = plain.clone();
        fingerprinted.request = Some(Hash([9; 32]));
        for env in [plain, fingerprinted] {
            // (The derived layout skips an absent request, as format 2 did.)
            let mut stored = vec![2u8];
            rmp_serde::encode::write(&mut stored, &[&env]).unwrap();
            assert_eq!(Envelope::decode_all(&stored), Ok(vec![env]));
        }
    }

    /// How format 1 stored an envelope: the previous hash as 32 numbers.
    #[derive(Serialize)]
    struct FormatOne<'a> {
        schema_version: u16,
        event_type: &'a str,
        stream: &'a crate::StreamId,
        sequence: u64,
        command_id: &'a str,
        causation_id: Option<&'a str>,
        correlation_id: Option<&'a str>,
        recorded_at: i64,
        prev_hash: [u8; 32],
        #[serde(with = "serde_bytes")]
        payload: &'a [u8],
    }

    #[test]
    fn envelopes_stored_in_format_one_are_read_as_they_were_written() {
        let mut env =
            envelope(NewEvent::encode("Seated", 1, &SeatedV1 { seat: 2, stack: 70 }).unwrap());
        env.prev_hash = Hash(std::array::from_fn(|i| (i * 7 + 200) as u8));
        let old = FormatOne {
            schema_version: env.schema_version,
            event_type: &env.event_type,
            stream: &env.stream,
            sequence: env.sequence,
            command_id: &env.command_id,
            causation_id: env.causation_id.as_deref(),
            correlation_id: env.correlation_id.as_deref(),
            recorded_at: env.recorded_at,
            prev_hash: env.prev_hash.0,
            payload: &env.payload,
        };
        let mut stored = vec![1u8];
        rmp_serde::encode::write(&mut stored, &[&old]).unwrap();
        let now = Envelope::encode_all(std::slice::from_ref(&env)).unwrap();
        assert_eq!(now[0], 3, "new envelopes are written in format 3");
        assert!(
            now.len() < stored.len(),
            "format 3 is smaller: {} bytes against {}",
            now.len(),
            stored.len()
        );
        assert_eq!(Envelope::decode_all(&stored), Ok(vec![env.clone()]));
        assert_eq!(Envelope::decode_all(&now), Ok(vec![env]));
        assert_eq!(
            Envelope::decode_all(&[4, 0x90]).unwrap_err().to_string(),
            "cannot decode envelopes: unknown envelope format 4"
        );
    }

    #[test]
    fn the_hash_covers_every_field() {
        let base =
            envelope(NewEvent::encode("Seated", 1, &SeatedV1 { seat: 2, stack: 70 }).unwrap());
        let h = base.hash();
        let mut changed = base.clone();
        changed.recorded_at += 1;
        assert_ne!(changed.hash(), h);
        let mut changed = base.clone();
        changed.command_id.push('x');
        assert_ne!(changed.hash(), h);
        let mut changed = base.clone();
        changed.prev_hash.0[0] ^= 1;
        assert_ne!(changed.hash(), h);
        let mut changed = base;
        changed.payload.push(0);
        assert_ne!(changed.hash(), h);
    }
}
