//! `/context` `3:proof`: how the recorded input components of a turn account for its
//! serialized request — masc-tui's reading of MASC's `Input_map`
//! (bin/masc_tui_context_inspector.ml `input_map_rows`, 00a3bd5d). An interpretation, stated
//! as such on screen and in docs/audits/chat.md "Context inspector tabs":
//!
//! - Per component: its producer (turn prompt assembly / effective tool surface / provider
//!   message list, as MASC groups them) and its evidence, strongest first: `VERIFIED` (the
//!   `keeper_instructions` block whose bytes and digest equal the serialized system prompt's,
//!   the digest recomputed here from the text received), `SERIALIZED` (the same turn's
//!   serialized input was read), `DIGEST ONLY` (a recorded prompt block digest of the same
//!   size), `BYTES ONLY`.
//! - Per producer: the recorded bytes against the serialized parts' bytes (system prompt,
//!   messages, tool schemas), equal or by how much they differ.
//! - In total: the components against the request body (`request_body_bytes` of the record,
//!   `wire.body_bytes` of the input): the rest is the request's own JSON framing, which no
//!   component records — shown as unattributed, never spread over the components.
//!
//! Nothing is inferred beyond these comparisons; a missing reading says which one is missing.

use super::reads::{Row, bytes, short};
use crate::protocol::inspector::ProviderInput;
use crate::protocol::inspector::turn_records::{ComponentSource, TurnRecord};
use crate::view::text::sanitize;
use crate::view::theme::Tone;

/// The evidence behind one component (MASC's `input_evidence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    Verified,
    Serialized,
    DigestOnly,
    BytesOnly,
}

impl Evidence {
    pub fn label(self) -> &'static str {
        match self {
            Self::Verified => "VERIFIED",
            Self::Serialized => "SERIALIZED",
            Self::DigestOnly => "DIGEST ONLY",
            Self::BytesOnly => "BYTES ONLY",
        }
    }
}

/// The evidence of component `i` of `record`, given the serialized input of the same turn.
pub fn evidence(record: &TurnRecord, i: usize, input: Option<&ProviderInput>) -> Evidence {
    let Some(c) = record.input_components.as_ref().and_then(|c| c.get(i)) else {
        return Evidence::BytesOnly;
    };
    let input = input.filter(|x| x.turn_ref == record.turn_ref);
    let block = c.prompt_block().and_then(|name| {
        record
            .blocks
            .iter()
            .find(|b| b.block == name && b.bytes == c.bytes)
    });
    if let (Some(block), Some(sp)) = (block, input.and_then(|x| x.system_prompt.as_ref()))
        && block.block == "keeper_instructions"
        && sp.sha256_matches_text
        && sp.bytes == c.bytes
        && block.digest == sp.sha256
    {
        return Evidence::Verified;
    }
    match (input, block) {
        (Some(_), _) => Evidence::Serialized,
        (None, Some(_)) => Evidence::DigestOnly,
        (None, None) => Evidence::BytesOnly,
    }
}

fn compare(label: &str, recorded: u64, serialized: u64) -> Row {
    if recorded == serialized {
        (
            format!(
                "  {label:<24} recorded {} = serialized {}  ✓",
                bytes(recorded),
                bytes(serialized)
            ),
            Tone::Good,
        )
    } else {
        let diff = recorded.abs_diff(serialized);
        (
            format!(
                "  {label:<24} recorded {} ≠ serialized {}  (differ by {diff} bytes)",
                bytes(recorded),
                bytes(serialized)
            ),
            Tone::Warn,
        )
    }
}

/// The proof rows of `record` against `input` (`None`: not read, failed or not served — the
/// caller says which above these rows).
pub fn proof_rows(record: &TurnRecord, input: Option<&ProviderInput>) -> Vec<Row> {
    let mut out = vec![(
        "interpretation (docs/audits/chat.md): how the recorded components account for the \
         serialized request"
            .to_string(),
        Tone::Dim,
    )];
    let input = input.filter(|x| x.turn_ref == record.turn_ref);
    let Some(components) = &record.input_components else {
        out.push((
            format!(
                "turn {}: no input components recorded — nothing to account for",
                sanitize(&record.turn_ref)
            ),
            Tone::Warn,
        ));
        return out;
    };
    out.push((
        format!("turn {} · per component", sanitize(&record.turn_ref)),
        Tone::Strong,
    ));
    for (i, c) in components.iter().enumerate() {
        let ev = evidence(record, i, input);
        let tone = match ev {
            Evidence::Verified => Tone::Good,
            Evidence::Serialized => Tone::Normal,
            Evidence::DigestOnly | Evidence::BytesOnly => Tone::Dim,
        };
        out.push((
            format!(
                "  {:<28} {:>9}  {:<22} {}",
                sanitize(&c.component),
                bytes(c.bytes),
                c.source().label(),
                ev.label()
            ),
            tone,
        ));
    }
    let recorded_total: u64 = components.iter().map(|c| c.bytes).sum();
    let of = |source: ComponentSource| -> u64 {
        components
            .iter()
            .filter(|c| c.source() == source)
            .map(|c| c.bytes)
            .sum()
    };
    let unknown = of(ComponentSource::Unknown);
    out.push(("per producer".into(), Tone::Strong));
    match input {
        Some(x) => {
            let (sys, msgs, tools) = x.item_bytes();
            out.push(compare(
                "turn prompt assembly",
                of(ComponentSource::PromptAssembly),
                sys,
            ));
            out.push(compare(
                "effective tool surface",
                of(ComponentSource::ToolSurface),
                tools,
            ));
            out.push(compare(
                "provider message list",
                of(ComponentSource::MessageList),
                msgs,
            ));
        }
        None => out.push((
            "  serialized input not read: per-producer bytes cannot be compared".into(),
            Tone::Dim,
        )),
    }
    if unknown > 0 {
        out.push((
            format!(
                "  {} in components this version does not know (not compared)",
                bytes(unknown)
            ),
            Tone::Warn,
        ));
    }
    out.push(("request body".into(), Tone::Strong));
    let body = record
        .request_body_bytes
        .or(input.map(|x| x.wire.body_bytes));
    match body {
        Some(body) if body > 0 => {
            let share = recorded_total as f64 * 100.0 / body as f64;
            out.push((
                format!(
                    "  components account for {} of {} ({share:.1}%)",
                    bytes(recorded_total),
                    bytes(body)
                ),
                Tone::Normal,
            ));
            if body >= recorded_total {
                out.push((
                    format!(
                        "  {} bytes unattributed: the request's own JSON framing (keys, model, \
                         parameters), recorded by no component",
                        body - recorded_total
                    ),
                    Tone::Dim,
                ));
            } else {
                out.push((
                    format!(
                        "  components exceed the body by {} bytes: the record and the request \
                         disagree",
                        recorded_total - body
                    ),
                    Tone::Bad,
                ));
            }
        }
        _ => out.push((
            "  request body size not recorded: the components cannot be compared to it".into(),
            Tone::Dim,
        )),
    }
    if let Some(x) = input {
        match record.request_body_bytes {
            Some(b) if b == x.wire.body_bytes => out.push((
                format!(
                    "  ✓ the record and the serialized request agree: {b} bytes, sha256 {}…",
                    short(&x.wire.body_sha256)
                ),
                Tone::Good,
            )),
            Some(b) => out.push((
                format!(
                    "  ✗ the record says {b} bytes, the serialized request {} bytes",
                    x.wire.body_bytes
                ),
                Tone::Bad,
            )),
            None => {}
        }
        out.push((
            "  the body itself is not served: its sha256 is shown, not recomputed".into(),
            Tone::Dim,
        ));
    }
    out
}
