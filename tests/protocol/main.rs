//! Protocol integration tests: decoders against the shared fixtures (and never panicking on
//! arbitrary input), the workspace client against a scripted server and the embedded one, and the
//! coop final-check report analysis.
//!
//! One test binary; each module is one former `tests/<name>.rs` file (test names keep their
//! rule ids). Shared rigs are declared here once.

mod support;

mod client_embedded;
mod client_identity;
mod client_read;
mod client_sse;
mod client_write;
mod decode_chat_batch_bound;
mod decode_chat_records;
mod decode_chat_stream;
mod decode_goals_planning;
mod decode_never_panics;
mod decode_system_fixtures;
mod decode_system_manifest;
mod decode_system_proptest;
mod final_check;
mod final_check_differential;
mod final_check_props;
mod fixture_manifest;
mod fuzz_corpus;
mod masc_tests_manifest;
