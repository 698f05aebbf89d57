//! The demo's approval that expires during a session (protocol.md
//! §10.5, §11) through the real view model: listed pending with its expiry minutes away, then
//! — the same row, later in the session — marked expired while the server still lists it, and
//! deciding it then says what the server answered (expired, dropped, nothing ran), sent once.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code
use crate::crash_rig::{restarted, server};
use crate::decisions_rig::CONFIRM;
use masc_tui::protocol::operator::{Approval, Decision};
use masc_tui::protocol::outcome::SaveClass;
use masc_tui::server::faults::FaultPlan;
use masc_tui::server::store::operator::EXPIRING_APPROVAL;
use masc_tui::view::model::Model;
use masc_tui::view::saves::SavePhase;
use masc_tui::view::screens::approvals::{self, ApprovalsUi};
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

fn shown(m: &Model) -> Option<Approval> {
    approvals::listed(m)
        .iter()
        .find(|a| a.confirm_token == EXPIRING_APPROVAL)
        .cloned()
}

/// The approval's row on the Approvals screen drawn at wall-clock `now_unix`.
fn row_at(m: &Model, now_unix: f64) -> String {
    let ui = Ui {
        area: Rect::new(0, 0, 240, 30),
        tab: Tab::Work,
        ..Ui::default()
    }
    .with_layer(ApprovalsUi::new(Tab::Work));
    let mut ctx = ProjectionCtx::now(Theme::plain());
    ctx.now_unix = now_unix;
    let mut t = Terminal::new(TestBackend::new(240, 30)).unwrap();
    t.draw(|f| render(m, &ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    masc_tui::view::sample::buffer_lines(t.backend().buffer())
        .into_iter()
        .find(|l| l.contains("keeper mira"))
        .unwrap_or_else(|| panic!("the expiring approval's row"))
}

/// §10.5, §11: pending with "expires HH:MM" when the demo starts;
/// past that minute the same listed row reads "expired HH:MM (still listed by the server)";
/// once the server's clock has passed it too, `y` `y`'s save is not applied with the server's
/// "pending confirmation expired", drawn "expired · the server dropped it", one POST.
#[tokio::test(flavor = "current_thread")]
async fn issue9_item3_item8_the_approval_expiring_in_the_session_is_marked_then_refused_expired() {
    let server = server(FaultPlan::default()).await;
    let dir = tempfile::tempdir().unwrap();
    let mut rig = restarted(&server, &dir.path().join("outbox.sqlite3")).await;
    rig.pump_until(|m| shown(m).is_some()).await;
    let approval = shown(&rig.model).unwrap();
    let expires = approval.expires_at.expect("it expires").unix_timestamp() as f64;
    let before = row_at(&rig.model, expires - 60.0);
    assert!(before.contains("· expires "), "{before}");
    assert!(!before.contains("expired"), "{before}");
    let after = row_at(&rig.model, expires + 1.0);
    assert!(
        after.contains("expired ") && after.contains("(still listed by the server)"),
        "{after}"
    );

    // The server's clock passes the expiry as well.
    let now = masc_tui::server::store::now_unix() as i64;
    server
        .state()
        .store()
        .write(move |tx| {
            tx.execute(
                "UPDATE operator_approvals SET expires_at = ?1 WHERE confirm_token = ?2",
                rusqlite::params![now - 1, EXPIRING_APPROVAL],
            )?;
            Ok(())
        })
        .await
        .unwrap();
    let id = rig.decide(approvals::intent_of(&approval, Decision::Confirm));
    rig.pump_until(|m| {
        m.decisions
            .decisions
            .get(&id)
            .is_some_and(|e| matches!(e.phase, SavePhase::Ended(_)))
    })
    .await;
    let entry = rig.model.decisions.decisions.get(&id).unwrap();
    assert_eq!(entry.phase.class(), Some(SaveClass::NotApplied));
    let (words, _) = approvals::decision_words(entry);
    assert!(
        words.contains("expired · the server dropped it; its action never runs"),
        "{words}"
    );
    assert_eq!(server.request_count("POST", CONFIRM), 1, "sent once");
    rig.stop().await;
    server.shutdown().await;
}
