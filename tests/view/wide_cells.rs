#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests may (COMMON.md)
//! T.7, C-70 beyond the chat (Korean and emoji align everywhere): Korean, emoji
//! with skin-tone modifiers and ZWJ sequences in the Keepers roster, the Board, Tasks, Tools and
//! the Runtime catalogue, drawn at 80 and 41 columns into a `TestBackend`.
//!
//! A terminal advances scalar by scalar (`view::text::grapheme_width`: `👍🏽` = 4 cells, a
//! family ZWJ sequence = 6), and the buffer diff moves the cursor to every cell it writes. So a
//! cluster stays whole, and the cell after it stays where the layout put it, exactly when no
//! cell the diff writes lies inside the cells the cluster takes on the terminal. The check
//! replays the diff of a full repaint (every cell changed) and the one from an empty screen.

use crate::rig::ScreensOf;
use crate::rig::SurfaceSlot;
use masc_tui::actors::contract::Ticket;
use masc_tui::actors::runtime::{RuntimeObservation, RuntimeSlot};
use masc_tui::protocol::admission::AdmissionMode;
use masc_tui::protocol::client::{Admitted, ClientError};
use masc_tui::view::model::Model;
use masc_tui::view::sample;
use masc_tui::view::screens::{ProjectionCtx, Tab, Ui, render};
use masc_tui::view::text::grapheme_width;
use masc_tui::view::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use std::sync::Arc;

/// Korean, a skin-tone modifier, a ZWJ family, a ZWJ with a modifier, a flag.
pub const WIDE: [&str; 5] = [
    "하늘",
    "\u{1F44D}\u{1F3FD}",
    "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
    "\u{1F9D1}\u{1F3FF}\u{200D}\u{1F4BB}",
    "\u{1F1F0}\u{1F1F7}",
];

/// One wide text per row: `base` followed by the wide pieces of `i`.
pub fn wide(base: &str, i: usize) -> String {
    format!(
        "{base} {} {}",
        WIDE[i % WIDE.len()],
        WIDE[(i + 1) % WIDE.len()]
    )
}

fn ok<T>(value: T) -> Result<Admitted<T>, ClientError> {
    Ok(Admitted {
        value: Arc::new(value),
        mode: AdmissionMode::Receipt,
        from_cache: false,
    })
}

fn deliver<S: SurfaceSlot + Clone>(m: &mut Model, slot: S, payload: S::Payload) {
    let ticket = Ticket {
        slot,
        generation: 1,
        scope: sample::scope(1),
    };
    crate::rig::deliver(m, ticket, payload);
}

fn connected() -> Model {
    let mut m = Model::default();
    m.on_identity(sample::confirmed(1, AdmissionMode::Receipt));
    m
}

fn draw(m: &Model, ui: &Ui) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(ui.area.width, ui.area.height)).unwrap();
    let ctx = ProjectionCtx::now(Theme::plain());
    t.draw(|f| render(m, ui, &ctx, f.area(), f.buffer_mut()))
        .unwrap();
    t.backend().buffer().clone()
}

/// Where the terminal breaks the frame: a cell the diff writes inside the cells a cluster
/// before it takes (the cluster loses its tail, or the next cell moves), or a cluster running
/// past the row's end. Both a full repaint and a repaint from an empty screen are replayed.
pub fn broken_cells(buf: &Buffer) -> Vec<String> {
    let area = buf.area;
    let mut everywhere = Buffer::empty(area);
    everywhere.set_style(area, Style::default().fg(Color::Indexed(201)));
    let mut out = Vec::new();
    for prev in [everywhere, Buffer::empty(area)] {
        let writes = prev.diff(buf);
        for pair in writes.windows(2) {
            let (x, y, cell) = pair[0];
            let (nx, ny, _) = pair[1];
            let w = grapheme_width(cell.symbol()) as u16;
            if ny == y && x + w > nx {
                out.push(format!(
                    "row {y}: {:?} at {x} takes {w} cells, the next write is at {nx}",
                    cell.symbol()
                ));
            }
        }
        for (x, y, cell) in &writes {
            let w = grapheme_width(cell.symbol()) as u16;
            if x + w > area.right() {
                out.push(format!(
                    "row {y}: {:?} at {x} runs past the edge",
                    cell.symbol()
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn ui(tab: Tab, width: u16) -> Ui {
    Ui {
        area: Rect::new(0, 0, width, 24),
        tab,
        ..Ui::default()
    }
}

/// The widths walked: 80 columns, the narrowest these screens draw (60), and the
/// 41-column screen — where every screen but the chat shows the 60×12 resize gate.
const WIDTHS: [u16; 3] = [80, 60, 41];

fn assert_whole(what: &str, m: &Model, ui: &Ui, must_show: &str) -> Buffer {
    let buf = draw(m, ui);
    let broken = broken_cells(&buf);
    assert!(
        broken.is_empty(),
        "{what} at {} columns:\n{}\n{}",
        ui.area.width,
        broken.join("\n"),
        sample::buffer_text(&buf)
    );
    let text = sample::buffer_text(&buf);
    let must_show = if ui.area.width < 60 {
        "terminal too small"
    } else {
        must_show
    };
    assert!(
        text.contains(must_show),
        "{what} at {}: {must_show:?} not shown\n{text}",
        ui.area.width
    );
    buf
}

/// The System surface on `pane`, `width` columns wide.
fn system_ui(pane: masc_tui::view::screens::system::SystemPane, width: u16) -> Ui {
    ui(Tab::System, width).with_screen(masc_tui::view::screens::system::SystemUi {
        pane,
        ..Default::default()
    })
}

/// T.7, C-70: the Keepers roster with Korean, skin-tone and ZWJ names and tasks.
#[test]
fn t7_c70_roster_keeps_wide_names_whole_and_columns_in_place() {
    use masc_tui::protocol::keepers::KeeperRowSlot;
    let mut m = connected();
    let rows = (0..6)
        .map(|i| {
            let mut row = sample::keeper_row(i);
            row.name = wide("k", i);
            row.current_task = Some(wide("작업 review", i + 2));
            KeeperRowSlot::Row(Box::new(row))
        })
        .collect();
    crate::rig::admit_roster(&mut m, rows);
    for width in WIDTHS {
        assert_whole("roster", &m, &ui(Tab::Keepers, width), "👍🏽");
    }
}

/// T.7, C-70: Board posts whose titles and authors are Korean and emoji.
#[test]
fn t7_c70_board_keeps_wide_titles_whole_and_columns_in_place() {
    use masc_tui::actors::board::{BoardObservation, BoardPostsRead, BoardQuery, BoardSlot};
    use masc_tui::protocol::board::{BoardPost, BoardPostsPage, CreatedAt};
    let posts: Vec<BoardPost> = (0..6)
        .map(|i| BoardPost {
            id: format!("post-{i}"),
            author: wide("작성자", i),
            title: wide("공지 nightly", i + 1),
            votes: 3,
            comment_count: 1,
            created: CreatedAt {
                iso: Some("2026-11-19T23:00:00Z".into()),
                unix: None,
            },
            body: Some(wide("본문", i)),
            updated_at: Some(1_795_000_000.0),
            hearth: Some(wide("ops", i)),
            post_kind: None,
            pinned: None,
            score: None,
        })
        .collect();
    let mut m = connected();
    deliver(
        &mut m,
        BoardSlot::Posts,
        BoardObservation::Posts(Box::new(BoardPostsRead {
            query: BoardQuery::default(),
            result: ok(BoardPostsPage {
                count: Some(posts.len() as u64),
                limit: Some(100),
                offset: Some(0),
                sort_by: Some(BoardQuery::default().sort.as_str().into()),
                posts,
            }),
        })),
    );
    for width in WIDTHS {
        assert_whole("board", &m, &ui(Tab::Board, width), "공지");
    }
}

/// T.7, C-70: the Tasks list with Korean and emoji titles and assignees.
#[test]
fn t7_c70_tasks_keep_wide_titles_whole_and_columns_in_place() {
    use masc_tui::actors::work::{WorkObservation, WorkSlot};
    use masc_tui::protocol::decode::WireDecode;
    use masc_tui::protocol::tasks::TaskList;
    use masc_tui::view::screens::work::WorkPane;
    let tasks: Vec<String> = (0..6)
        .map(|i| {
            serde_json::json!({
                "id": format!("task-{i}"), "title": wide("검토 review", i), "status": "todo",
                "priority": 1, "assignee": wide("담당", i + 3),
                "created_at": "2026-10-01T09:00:00Z", "completed_at": null,
                "archived": false, "goal_ids": []
            })
            .to_string()
        })
        .collect();
    let body = format!(
        r#"{{"schema":"masc.task_list.v1","sources":{{"backlog":{{"state":"read"}},"archive":{{"state":"read"}},"goal_links":{{"state":"read"}}}},"tasks":[{}]}}"#,
        tasks.join(",")
    );
    let mut m = connected();
    deliver(
        &mut m,
        WorkSlot::TaskList,
        WorkObservation::TaskList(ok(TaskList::decode(body.as_bytes()).unwrap())),
    );
    for width in WIDTHS {
        let mut u = ui(Tab::Work, width);
        u.work_mut().pane = WorkPane::Tasks;
        assert_whole("tasks", &m, &u, "검토");
    }
}

/// T.7, C-70: the Tools inventory with Korean and emoji tool names (and descriptions).
#[test]
fn t7_c70_tools_keep_wide_names_whole_and_columns_in_place() {
    use masc_tui::actors::tools::{ToolsObservation, ToolsSlot};
    use masc_tui::protocol::decode::WireDecode;
    use masc_tui::protocol::tools::ToolsInventoryRead;
    use masc_tui::view::screens::system::SystemPane;
    let tools: Vec<serde_json::Value> = (0..6)
        .map(|i| {
            serde_json::json!({"name": format!("{}_{i}", wide("도구", i)),
                "description": wide("게시판에 글 올리기", i),
                "registered_schema": true, "dispatch_registered": true,
                "direct_call_allowed": true, "surfaces": ["public_mcp"],
                "doc_refs": [], "prompt_hints": []})
        })
        .collect();
    let body = serde_json::json!({"generated_at": "2026-08-23T09:00:00Z",
        "tool_inventory": {"count": tools.len(), "surface_summary": {}, "tools": tools},
        "tool_usage": {}, "effective_keeper_surface": null, "skill_activations": null});
    let mut m = connected();
    deliver(
        &mut m,
        ToolsSlot::ToolsInventory,
        ToolsObservation::ToolsInventory(ok(ToolsInventoryRead::decode(
            body.to_string().as_bytes(),
        )
        .unwrap())),
    );
    for width in WIDTHS {
        let u = system_ui(SystemPane::Tools, width);
        assert_whole("tools", &m, &u, "도구");
    }
}

/// T.7, C-70: the Runtime catalogue with Korean and emoji providers and models.
#[test]
fn t7_c70_runtime_catalogue_keeps_wide_labels_whole_and_columns_in_place() {
    use masc_tui::actors::runtime::RuntimeLoad;
    use masc_tui::protocol::decode::WireDecode;
    use masc_tui::protocol::runtime::RuntimeResolved;
    use masc_tui::view::screens::system::SystemPane;
    let runtimes: Vec<serde_json::Value> = (0..4)
        .map(|i| {
            serde_json::json!({"id": format!("rt.{i}"), "provider": wide("공급자", i),
                "provider_id": format!("p{i}"), "model": wide("모델", i + 1),
                "effective_max_context": 200000, "max_output_tokens": null,
                "is_local": false, "is_default": false, "quota_exhausted": false,
                "rate_limited": false, "quota_scope": null, "quota_resets_at": null,
                "rate_limit_resets_at": null})
        })
        .collect();
    let body = serde_json::json!({"generated_at_iso": "2026-11-20T09:00:00Z",
        "source": "/api/v1/runtime/resolved", "config_path": "/srv/config/runtime.toml",
        "default_runtime": null, "runtimes": runtimes,
        "lanes": [{"id": "기본 👍🏽", "runtime_ids": ["rt.0", "rt.1"], "declared": true}],
        "assignments": [], "media_failover": [], "provider_usage_windows_since": 1790179140.2,
        "provider_usage_windows": []});
    let mut m = connected();
    deliver(
        &mut m,
        RuntimeSlot::Catalogue,
        RuntimeObservation::Catalogue(Box::new(RuntimeLoad {
            resolved: ok(RuntimeResolved::decode(body.to_string().as_bytes()).unwrap()),
            probe: Err(ClientError::Timeout),
            forced: false,
        })),
    );
    for width in WIDTHS {
        let u = system_ui(SystemPane::Runtime, width);
        assert_whole("runtime catalogue", &m, &u, "공급자");
    }
}
