//! §11 classifiers of the configuration writes: keeper settings and sandbox (§9.6, §9.7),
//! runtime assignment (§9.8), runtime raw save and form (§9.3, §9.4), keeper create (§9.9).

use super::{SaveOutcome, common_case, error_string, refusal, unlisted};
use crate::protocol::decode::WireDecode;
use crate::protocol::keeper_config::{
    ConfigRevision, ConfigWrite, KeeperConfigErrorCode, KeeperConfigFailure,
    KeeperConfigSaveRequest, KeeperConfigSaveResponse, KeeperConfigSnapshot, KeeperCreateRequest,
    KeeperCreated, LaneStart, NetworkMode, RevisionConflict, RuntimeAssignmentRequest,
    RuntimeAssignmentResponse, RuntimeAssignmentRevision, SandboxProfile,
    decode_assignment_conflict,
};
use crate::protocol::runtime::{
    CommitReceipt, RawSaveErrorBody, RuntimeConfigConflict, RuntimeConfigCurrent,
    RuntimeConfigPreview, RuntimeRawSaveRequest, is_known_raw_save_refusal,
    raw_save_unknown_marker,
};

// ---- keeper settings and sandbox ----

/// What an applied settings save committed.
#[derive(Debug, Clone, PartialEq)]
pub enum KeeperConfigApplied {
    /// 200 with `config_write.applied: true`.
    Written(ConfigWrite),
    /// 503 `keeper_runtime_sync_failed`: the file is committed, the runtime is not synced.
    WrittenRuntimeNotSynced,
}

pub type KeeperConfigOutcome = SaveOutcome<KeeperConfigApplied, RevisionConflict<ConfigRevision>>;

pub fn classify_keeper_config_save(
    status: u16,
    body: &[u8],
    req: &KeeperConfigSaveRequest,
) -> KeeperConfigOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200 => match KeeperConfigSaveResponse::decode(body) {
            Ok(r) if r.config_write.applied => {
                let warning = (!r.config_write.warnings.is_empty()).then(|| {
                    format!(
                        "{} warning(s) from the server",
                        r.config_write.warnings.len()
                    )
                });
                SaveOutcome::Applied {
                    detail: KeeperConfigApplied::Written(r.config_write),
                    warning,
                }
            }
            Ok(_) => SaveOutcome::Unchanged,
            Err(e) => SaveOutcome::unknown(format!("200 without a valid config_write ({e})")),
        },
        400 | 404 => SaveOutcome::not_applied(refusal(status, body)),
        409 => match KeeperConfigFailure::decode(body) {
            Ok(KeeperConfigFailure {
                conflict: Some(conflict),
                ..
            }) if keeper_echo_matches(body, &req.keeper) => {
                SaveOutcome::Conflict { current: conflict }
            }
            _ => SaveOutcome::unknown("409 that is not a typed revision conflict"),
        },
        503 => match KeeperConfigFailure::decode(body).map(|f| f.code) {
            Ok(KeeperConfigErrorCode::KeeperConfigPublicationRolledBack) => {
                SaveOutcome::not_applied("publication rolled back (config not applied)")
            }
            Ok(KeeperConfigErrorCode::KeeperRuntimeSyncFailed) => SaveOutcome::Applied {
                detail: KeeperConfigApplied::WrittenRuntimeNotSynced,
                warning: Some("runtime sync failed".into()),
            },
            Ok(
                KeeperConfigErrorCode::KeeperManifestReconciliationRequired
                | KeeperConfigErrorCode::KeeperConfigCompositeReconciliationRequired,
            ) => SaveOutcome::unknown("reconciliation required: authoritative reload needed"),
            Ok(KeeperConfigErrorCode::KeeperConfigRevisionConflict) | Err(_) => {
                SaveOutcome::unknown("503 without a recognised code")
            }
        },
        _ => unlisted(status),
    }
}

/// The 409 names the keeper; when it does, it must be ours.
fn keeper_echo_matches(body: &[u8], keeper: &str) -> bool {
    super::string_field(body, "keeper").is_none_or(|k| k == keeper)
}

/// §9.7: with a fresh snapshot in hand, an equal profile is "unchanged, not sent".
pub fn sandbox_save_precheck(
    fresh: &KeeperConfigSnapshot,
    profile: SandboxProfile,
    network: Option<NetworkMode>,
) -> Option<KeeperConfigOutcome> {
    let same_network = network.is_none_or(|n| n == fresh.network_mode);
    (fresh.sandbox_profile == profile && same_network).then_some(SaveOutcome::Unchanged)
}

// ---- runtime assignment ----

pub type RuntimeAssignmentOutcome =
    SaveOutcome<CommitReceipt, RevisionConflict<RuntimeAssignmentRevision>>;

pub fn classify_runtime_assignment(
    status: u16,
    body: &[u8],
    _req: &RuntimeAssignmentRequest,
) -> RuntimeAssignmentOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200 => match RuntimeAssignmentResponse::decode(body) {
            Ok(RuntimeAssignmentResponse::Committed(receipt)) => SaveOutcome::Applied {
                warning: receipt.durability_warning(),
                detail: receipt,
            },
            Ok(RuntimeAssignmentResponse::Unchanged { .. }) => SaveOutcome::Unchanged,
            Err(e) => SaveOutcome::unknown(format!("200 that is not a receipt ({})", e.reason())),
        },
        409 => match decode_assignment_conflict(body) {
            Ok(conflict) => SaveOutcome::Conflict { current: conflict },
            Err(_) => SaveOutcome::unknown("409 that is not a typed assignment conflict"),
        },
        // MASC uses 400 for validation and for I/O or atomic-replace failure alike.
        400 => SaveOutcome::unknown("400 from the assignment (may follow an applied replace)"),
        _ => unlisted(status),
    }
}

// ---- runtime raw save and form ----

pub type RuntimeRawSaveOutcome = SaveOutcome<CommitReceipt, RuntimeConfigCurrent>;

pub fn classify_runtime_raw_save(
    status: u16,
    body: &[u8],
    _req: &RuntimeRawSaveRequest,
) -> RuntimeRawSaveOutcome {
    if let Ok(obj) = crate::protocol::decode::decode_object(body)
        && let Some(marker) = raw_save_unknown_marker(&obj)
    {
        return SaveOutcome::unknown(format!("HTTP {status} with {marker}"));
    }
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        200..=299 => match CommitReceipt::decode(body) {
            Ok(receipt) => SaveOutcome::Applied {
                warning: receipt.durability_warning(),
                detail: receipt,
            },
            Err(_) => SaveOutcome::unknown("2xx without ok:true and state committed"),
        },
        400 => match RawSaveErrorBody::classify(body) {
            RawSaveErrorBody::Refusal { error } => {
                SaveOutcome::not_applied(format!("HTTP 400: {error}"))
            }
            RawSaveErrorBody::Indeterminate { reason } => {
                SaveOutcome::unknown(format!("400 that is not a definite refusal: {reason}"))
            }
        },
        409 => match RuntimeConfigConflict::decode(body) {
            Ok(c) => SaveOutcome::Conflict { current: c.current },
            Err(e) => SaveOutcome::unknown(format!("409 whose current fails the check ({e})")),
        },
        _ => unlisted(status),
    }
}

/// The raw-save family when only the body is known (fixtures, `decode --as`): a known
/// pre-commit refusal (parse failure, `source_text required`, `ok:false` with validation)
/// reads as its 400; a marker or a non-string error is a 400-shaped unknown; any other bare
/// error cannot be placed and reads as a failure after sending (unknown).
pub fn classify_runtime_raw_save_body(body: &[u8]) -> RuntimeRawSaveOutcome {
    let req = RuntimeRawSaveRequest {
        expected_source_revision: String::new(),
    };
    let validation_refusal = crate::protocol::decode::decode_object(body).is_ok_and(|o| {
        o.get("ok") == Some(&serde_json::Value::Bool(false)) && o.contains_key("validation")
    });
    let implied = match RawSaveErrorBody::classify(body) {
        RawSaveErrorBody::Refusal { error }
            if validation_refusal || is_known_raw_save_refusal(&error) =>
        {
            400
        }
        RawSaveErrorBody::Refusal { .. } => 500,
        RawSaveErrorBody::Indeterminate { .. } => 400,
    };
    classify_runtime_raw_save(implied, body, &req)
}

/// Runtime form gate (§9.3): the commit is sent only after a 200 preview with `can_save`.
/// `Err(reason)`: the commit is not sent; the form's outcome is
/// `SaveOutcome::NotApplied { reason }` (a preview writes nothing).
pub fn runtime_form_preview_gate(status: u16, body: &[u8]) -> Result<RuntimeConfigPreview, String> {
    if status != 200 {
        return Err(format!("preview refused ({})", refusal(status, body)));
    }
    match RuntimeConfigPreview::decode(body) {
        Ok(p) if p.can_save => Ok(p),
        Ok(_) => Err("preview says the text cannot be saved".into()),
        Err(e) => Err(format!("preview unreadable ({})", e.reason())),
    }
}

// ---- keeper create ----

/// The existing keeper a create collided with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeeperExists {
    pub name: Option<String>,
}

pub type KeeperCreateOutcome = SaveOutcome<KeeperCreated, KeeperExists>;

pub fn classify_keeper_create(
    status: u16,
    body: &[u8],
    req: &KeeperCreateRequest,
) -> KeeperCreateOutcome {
    if let Some(o) = common_case(status, body) {
        return o;
    }
    match status {
        201 => match KeeperCreated::decode(body) {
            Ok(c) if c.name == req.name && c.detail.name == req.name => {
                let warning = match &c.detail.lane {
                    LaneStart::Running => None,
                    LaneStart::Failed { .. } => {
                        Some("created, but the lane failed to start".into())
                    }
                };
                SaveOutcome::Applied { detail: c, warning }
            }
            Ok(_) => SaveOutcome::unknown("201 naming another keeper"),
            Err(e) => SaveOutcome::unknown(format!("201 without a valid detail ({})", e.reason())),
        },
        // No MASC serves the create-only route (§9.9; §15.11): its 404 says so in the one word
        // the view acts on (it offers create-or-update `/up` where that is served).
        404 | 405
            if status == 405
                || crate::protocol::routes::classify_404(
                    crate::protocol::routes::RouteFamily::KeeperCreate,
                    body,
                ) == crate::protocol::routes::NotFoundMeaning::NotServed =>
        {
            SaveOutcome::not_applied(crate::protocol::keeper_up::CREATE_ONLY_NOT_SERVED)
        }
        400 | 404 | 405 => SaveOutcome::not_applied(refusal(status, body)),
        409 if error_string(body).as_deref() == Some("keeper_exists") => SaveOutcome::Conflict {
            current: KeeperExists {
                name: super::string_field(body, "name"),
            },
        },
        _ => unlisted(status),
    }
}
