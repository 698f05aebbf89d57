//! Asks family: list (§10.1), answer (§10.2, first write wins), follow-up SSE (§10.3) and the
//! turn transcript v2 (§10.4).

use crate::server::http::{
    ApiResult, Guard, Operator, Public, Read, error_body, json_ok, json_status, parse_query,
    query_get, request_faults, with_echo,
};
use crate::server::routes::keeper_config::object_body;
use crate::server::routes::tools::request_actor;
use crate::server::state::AppState;
use crate::server::store::asks::{self as store, Question};
use crate::server::store::{keepers, now_unix};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{Extensions, HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/keepers/asks", get(list))
        .route("/api/v1/keepers/asks/follow-up", get(follow_up))
        .route("/api/v1/keepers/ask-answer", post(answer))
        .route("/api/v1/keepers/{name}/turn-transcript", get(transcript))
}

fn keeper_404(name: &str) -> Response {
    error_body(
        StatusCode::NOT_FOUND,
        &format!("keeper \"{name}\" not found"),
    )
}

fn bad(msg: &str) -> Response {
    error_body(StatusCode::BAD_REQUEST, msg)
}

fn non_blank(q: &[(String, String)], key: &str) -> Option<String> {
    query_get(q, key)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

async fn list(_: Guard<Read>, State(state): State<AppState>, RawQuery(raw): RawQuery) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let keeper = non_blank(&q, "name");
    let include = matches!(query_get(&q, "include_resolved"), Some("true" | "1"));
    let k = keeper.clone();
    let body = state
        .store()
        .read(move |c| {
            if let Some(k) = &k
                && !keepers::exists(c, k)?
            {
                return Ok(None);
            }
            store::list(c, k.as_deref(), include).map(Some)
        })
        .await?;
    Ok(match body {
        Some(b) => json_ok(b),
        None => keeper_404(keeper.as_deref().unwrap_or_default()),
    })
}

/// Check one answer list against the ask's questions; returns the answered question ids.
fn check_answers(questions: &[Question], answers: &Value) -> Result<Vec<String>, String> {
    let list = answers.as_array().ok_or("answers must be a list")?;
    if list.len() != questions.len() {
        return Err(format!(
            "expected {} answers, got {}",
            questions.len(),
            list.len()
        ));
    }
    let mut answered = Vec::new();
    for (q, a) in questions.iter().zip(list) {
        let qid = a
            .get("question_id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if qid != q.question_id {
            return Err(format!(
                "answer for {qid:?} where {} was expected",
                q.question_id
            ));
        }
        let response = a
            .get("response")
            .ok_or(format!("{qid}: response is required"))?;
        match response.get("kind").and_then(Value::as_str) {
            Some("chose") => {
                let ids: Vec<&str> = response
                    .get("choice_ids")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if ids.is_empty() {
                    return Err(format!("{qid}: choice_ids must not be empty"));
                }
                if q.mode == "single" && ids.len() != 1 {
                    return Err(format!("{qid}: a single-choice question takes one choice"));
                }
                if let Some(bad) = ids.iter().find(|id| !q.choice_ids.iter().any(|c| c == *id)) {
                    return Err(format!("{qid}: unknown choice {bad}"));
                }
                answered.push(q.question_id.clone());
            }
            Some("wrote") => {
                if !q.free_text_allowed {
                    return Err(format!("{qid}: free text is not allowed"));
                }
                let text = response
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if text.trim().is_empty() {
                    return Err(format!("{qid}: text must not be blank"));
                }
                answered.push(q.question_id.clone());
            }
            Some("skipped") => {}
            _ => {
                return Err(format!(
                    "{qid}: response kind must be chose, wrote or skipped"
                ));
            }
        }
    }
    Ok(answered)
}

enum AnswerOutcome {
    UnknownKeeper,
    UnknownAsk,
    Resolved(String),
    Invalid(String),
    Answered { open_remaining: usize, count: usize },
}

async fn answer(
    _: Guard<Operator>,
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    let m = object_body(&body, bad)?;
    let text = |k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let Some(name) = text("name") else {
        return Ok(bad("name is required"));
    };
    let Some(ask_id) = text("ask_id") else {
        return Ok(bad("ask_id is required"));
    };
    let Some(answers) = m.get("answers").cloned() else {
        return Ok(bad("answers is required"));
    };
    let actor = request_actor(&headers).unwrap_or_else(|| "operator".into());
    let (n, a, who) = (name.clone(), ask_id.clone(), actor.clone());
    let outcome = state
        .store()
        .write(move |tx| {
            if !keepers::exists(tx, &n)? {
                return Ok(AnswerOutcome::UnknownKeeper);
            }
            let Some((keeper, ask_state)) = store::ask_state(tx, &a)?.filter(|(k, _)| *k == n)
            else {
                return Ok(AnswerOutcome::UnknownAsk);
            };
            if ask_state != "open" {
                return Ok(AnswerOutcome::Resolved(ask_state));
            }
            let questions = store::questions(tx, &a)?;
            let answered = match check_answers(&questions, &answers) {
                Ok(ids) => ids,
                Err(msg) => return Ok(AnswerOutcome::Invalid(msg)),
            };
            let open =
                store::record_answer(tx, &a, &keeper, &who, &answers, &answered, now_unix())?;
            Ok(AnswerOutcome::Answered {
                open_remaining: open,
                count: questions.len(),
            })
        })
        .await?;
    Ok(match outcome {
        AnswerOutcome::UnknownKeeper => keeper_404(&name),
        AnswerOutcome::UnknownAsk => {
            error_body(StatusCode::NOT_FOUND, &format!("ask not found: {ask_id}"))
        }
        AnswerOutcome::Invalid(msg) => bad(&msg),
        AnswerOutcome::Resolved(s) => json_status(
            StatusCode::CONFLICT,
            json!({"ok": false, "error": "ask_already_resolved", "ask_id": ask_id, "state": s}),
        ),
        AnswerOutcome::Answered {
            open_remaining,
            count,
        } => json_ok(json!({
            "ok": true, "ask_id": ask_id, "actor": actor, "answer_count": count,
            "open_remaining": open_remaining,
        })),
    })
}

fn sse_frame(v: &Value) -> Bytes {
    Bytes::from(format!("data: {v}\n\n"))
}

/// §10.3: STARTED, one SOURCE per source, COMPLETED. A workspace read (receipt added by the
/// middleware); the echo fault alters the STARTED identity.
async fn follow_up(
    _: Guard<Read>,
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    extensions: Extensions,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let Some(name) = non_blank(&q, "name") else {
        return Ok(bad("name is required"));
    };
    let Some(ask_id) = non_blank(&q, "ask_id") else {
        return Ok(bad("ask_id is required"));
    };
    let (n, a) = (name.clone(), ask_id.clone());
    let found = state
        .store()
        .read(move |c| {
            if !keepers::exists(c, &n)? {
                return Ok(Err(true));
            }
            match store::ask_state(c, &a)? {
                Some((k, _)) if k == n => Ok(store::follow_up(c, &a)?.ok_or(false)),
                _ => Ok(Err(false)),
            }
        })
        .await?;
    let (task_id, sources) = match found {
        Ok(f) => f,
        Err(true) => return Ok(keeper_404(&name)),
        Err(false) => {
            return Ok(error_body(
                StatusCode::NOT_FOUND,
                &format!("ask not found: {ask_id}"),
            ));
        }
    };
    let faults = request_faults(&extensions);
    let started_id = if faults.echo_wrong {
        format!("{ask_id}-wrong-echo")
    } else {
        ask_id.clone()
    };
    let mut frames = vec![sse_frame(&json!({
        "type": "ASK_FOLLOW_UP_STARTED", "ask_id": started_id, "keeper": name, "task_id": task_id,
    }))];
    for (source, observation) in sources {
        frames.push(sse_frame(&json!({
            "type": "ASK_FOLLOW_UP_SOURCE", "ask_id": ask_id, "keeper": name,
            "source": source, "observation": observation,
        })));
    }
    frames.push(sse_frame(
        &json!({"type": "ASK_FOLLOW_UP_COMPLETED", "ask_id": ask_id, "keeper": name}),
    ));
    // Outside test mode the sources arrive apart (the Tool result well before the turn), as a
    // live follow-up would: each shows as it arrives.
    let gap = (!state.test_mode()).then(|| std::time::Duration::from_millis(400));
    let stream = async_stream::stream! {
        for (i, frame) in frames.into_iter().enumerate() {
            if i > 1 && let Some(gap) = gap {
                tokio::time::sleep(gap).await;
            }
            yield Ok::<Bytes, std::io::Error>(frame);
        }
    };
    let mut resp = Response::new(Body::from_stream(stream));
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(resp)
}

async fn transcript(
    _: Guard<Public>,
    State(state): State<AppState>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult {
    let q = parse_query(raw.as_deref());
    let Some(turn_ref) = non_blank(&q, "turn_ref") else {
        return Ok(bad("turn_ref query parameter is required"));
    };
    // §15.10: MASC answers version 1 and ignores `version`; version 2 is this server's
    // extension, answered only when asked for in the current protocol (receipts on).
    let extension = query_get(&q, "version") == Some("2")
        && state.release().is_none()
        && !state.legacy_no_receipts();
    let (n, t) = (name.clone(), turn_ref.clone());
    let rows = state
        .store()
        .read(move |c| {
            if !keepers::exists(c, &n)? {
                return Ok(None);
            }
            store::transcript(c, &n, &t).map(Some)
        })
        .await?;
    let body = if extension {
        let Some(rows) = rows else {
            return Ok(keeper_404(&name));
        };
        json!({
            "schema": "masc.turn_transcript.v2",
            "keeper": name,
            "turn_ref": turn_ref,
            "found": !rows.is_empty(),
            "rows": rows,
        })
    } else {
        // An unknown Keeper is not an error to MASC: nothing carries the turn_ref.
        let august = state.release().is_some_and(|r| r.is_august());
        version_1(&name, &turn_ref, &rows.unwrap_or_default(), august)
    };
    Ok(with_echo(json_ok(body), &["keeper", "turn_ref"]))
}

/// MASC's version-1 body (`Keeper_chat_store.turn_transcript_to_json`): the request's lines,
/// the retained response's, `found` exactly when a line exists. A failed request is an
/// assistant line with `kind: transport_failure` on the August store, a `request_failure` line
/// on the newest.
fn version_1(keeper: &str, turn_ref: &str, rows: &[Value], august: bool) -> Value {
    let line = |r: &Value| {
        let failure = r["kind"] == "request_failure";
        let mut l = json!({"role": r["role"], "content": r["content"], "ts": r["ts"]});
        if failure && august {
            l["kind"] = json!("transport_failure");
        } else if failure {
            l["role"] = json!("request_failure");
        }
        l
    };
    let user: Vec<Value> = rows
        .iter()
        .filter(|r| r["role"] == "user")
        .map(line)
        .collect();
    let assistant: Vec<Value> = rows
        .iter()
        .filter(|r| r["role"] != "user")
        .map(line)
        .collect();
    json!({
        "keeper": keeper,
        "turn_ref": turn_ref,
        "found": !user.is_empty() || !assistant.is_empty(),
        "source": "keeper_chat_store",
        "user": user,
        "assistant": assistant,
    })
}
