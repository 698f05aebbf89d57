//! The Tools panes (surfaces.md "Tools"; sources.md T-3, T-4): all tools (inventory) and
//! the Skills catalogue, each from its own slot (async runs: `asyncs`). The registered-tool count
//! appears only with a settled inventory (T-4); warming, not-registered, uninitialised and
//! unavailable read as what they are, never as 0 or empty (G-5).

use super::slot_status_lines;
use crate::protocol::skills::{SkillSurfaceKind, SkillsSnapshotRead};
use crate::protocol::tools::ToolsInventoryRead;
use crate::view::model::Model;
use crate::view::screens::ProjectionCtx;
use crate::view::text::{fit_width, pad_to, sanitize};
use crate::view::theme::Tone;
use ratatui::text::Line;

fn fit(text: &str, width: usize) -> String {
    fit_width(text, width).into_owned()
}

pub fn tools_lines(model: &Model, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let fetched = &model.tools.inventory.fetched;
    let mut out = Vec::new();
    out.extend(slot_status_lines("tool inventory", fetched, ctx, width));
    let Some(observed) = fetched.last() else {
        return out;
    };
    match observed.value.as_ref() {
        ToolsInventoryRead::Warming { generated_at } => out.push(Line::styled(
            format!(
                "tool inventory: server still computing it (warming{}) — not 0 tools",
                generated_at
                    .as_deref()
                    .map(|g| format!(", since {}", sanitize(g)))
                    .unwrap_or_default()
            ),
            theme.style(Tone::Warn),
        )),
        ToolsInventoryRead::Settled(inv) => {
            let section = &inv.tool_inventory;
            out.push(Line::styled(
                format!(
                    "ALL TOOLS  {} registered · generated {}",
                    section.count,
                    sanitize(&inv.generated_at)
                ),
                theme.style(Tone::Strong),
            ));
            out.push(Line::styled(
                "  NAME                         SCHEMA DISPATCH DIRECT  SURFACES / DESCRIPTION",
                theme.style(Tone::Dim),
            ));
            let yes_no = |v: Option<bool>| match v {
                Some(true) => "yes",
                Some(false) => "no",
                None => "?",
            };
            for t in &section.tools {
                let surfaces = t
                    .surfaces
                    .as_ref()
                    .map(|s| {
                        s.iter()
                            .map(|x| sanitize(x).into_owned())
                            .collect::<Vec<_>>()
                            .join(",")
                    })
                    .unwrap_or_else(|| "?".into());
                let text = format!(
                    "  {} {:<6} {:<8} {:<6}  {} · {}",
                    pad_to(&fit_width(&sanitize(&t.name), 28), 28),
                    yes_no(t.registered_schema),
                    yes_no(t.dispatch_registered),
                    if t.direct_call_allowed { "yes" } else { "no" },
                    surfaces,
                    t.description
                        .as_deref()
                        .map(|d| sanitize(d).into_owned())
                        .unwrap_or_default()
                );
                out.push(Line::raw(fit(&text, width)));
            }
        }
    }
    out
}

pub fn skills_lines(model: &Model, ctx: &ProjectionCtx, width: usize) -> Vec<Line<'static>> {
    let theme = ctx.theme;
    let fetched = &model.tools.skills.fetched;
    let mut out = Vec::new();
    out.extend(slot_status_lines("skills catalogue", fetched, ctx, width));
    let Some(observed) = fetched.last() else {
        return out;
    };
    let ready = match observed.value.as_ref() {
        SkillsSnapshotRead::Ready(r) => r,
        SkillsSnapshotRead::NotRegistered => {
            out.push(Line::styled(
                "skills catalogue: not registered on this server (no catalogue, not an empty one)",
                theme.style(Tone::Warn),
            ));
            return out;
        }
        SkillsSnapshotRead::Uninitialized => {
            out.push(Line::styled(
                "skills catalogue: not initialised yet (no data, not an empty catalogue)",
                theme.style(Tone::Warn),
            ));
            return out;
        }
        SkillsSnapshotRead::InvalidWorkspace => {
            out.push(Line::styled(
                "skills catalogue: the server rejected this workspace (invalid_workspace)",
                theme.style(Tone::Bad),
            ));
            return out;
        }
    };
    out.push(Line::styled(
        format!(
            "SKILLS  {} surfaces · {} rejected · revision {} · catalogue {}",
            ready.surfaces.len(),
            ready.snapshot.rejections.len(),
            sanitize(&ready.snapshot.snapshot_revision),
            sanitize(&ready.snapshot.catalog_revision)
        ),
        theme.style(Tone::Strong),
    ));
    match &ready.usage_coverage {
        Some(c) if c.unavailable.is_empty() => out.push(Line::styled(
            format!("usage from {} ledgers", c.ledgers_loaded),
            theme.style(Tone::Dim),
        )),
        Some(c) => out.push(Line::styled(
            format!(
                "usage from {} ledgers · unavailable: {}",
                c.ledgers_loaded,
                c.unavailable
                    .iter()
                    .map(|u| sanitize(u).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            theme.style(Tone::Warn),
        )),
        None => out.push(Line::styled(
            "usage coverage not reported by this server",
            theme.style(Tone::Dim),
        )),
    }
    if ready.surfaces.is_empty() {
        out.push(Line::styled("no skill surfaces", theme.style(Tone::Dim)));
    }
    for s in &ready.surfaces {
        let kind = match s.kind {
            SkillSurfaceKind::Instruction => "instruction",
            SkillSurfaceKind::Composition => "composition",
            SkillSurfaceKind::Unavailable => "unavailable",
        };
        let invocations: u64 = s.usage.iter().map(|u| u.invocations).sum();
        let keepers: Vec<String> = s
            .usage
            .iter()
            .map(|u| sanitize(&u.keeper).into_owned())
            .collect();
        let uses = if s.usage_reported {
            format!("{invocations} invocations")
        } else {
            "usage not reported".to_string()
        };
        let text = format!(
            "  {} {:<11} {uses}{}",
            pad_to(&fit_width(&sanitize(&s.reference.identity.name), 28), 28),
            kind,
            if keepers.is_empty() {
                String::new()
            } else {
                format!(" · {}", keepers.join(", "))
            }
        );
        let tone = if s.kind == SkillSurfaceKind::Unavailable {
            Tone::Bad
        } else {
            Tone::Normal
        };
        out.push(Line::styled(fit(&text, width), theme.style(tone)));
    }
    for r in &ready.snapshot.rejections {
        out.push(Line::styled(
            fit(
                &format!(
                    "  rejected {} (source {}): {}",
                    r.package_id
                        .as_deref()
                        .map(|p| sanitize(p).into_owned())
                        .unwrap_or_else(|| "(no package id)".into()),
                    sanitize(&r.source_id),
                    sanitize(&r.reason.to_string())
                ),
                width,
            ),
            theme.style(Tone::Bad),
        ));
    }
    out
}

#[cfg(test)]
mod compat_tests {
    use super::super::SystemPane;
    use crate::actors::contract::{SlotEvent, SlotKey, Ticket};
    use crate::actors::runtime::{RuntimeObservation, RuntimeSlot};
    use crate::actors::tools::{ToolsObservation, ToolsSlot};
    use crate::protocol::admission::AdmissionMode;
    use crate::protocol::client::{Admitted, ClientError};
    use crate::protocol::decode::WireDecode;
    use crate::protocol::runtime::RuntimeResolved;
    use crate::protocol::tools::ToolsInventoryRead;
    use crate::view::model::Model;
    use crate::view::sample::{self, buffer_text};
    use crate::view::screens::{ProjectionCtx, Tab, Ui, render};
    use crate::view::theme::Theme;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::layout::Rect;
    use std::sync::Arc;
    use std::time::Instant;

    const AUG_TOOLS: &[u8] = include_bytes!(
        "../../../../tests/fixtures/compat/dashboard_tools__aug_settled_without_surface_keys.json"
    );
    const AUG_WARMING: &[u8] = include_bytes!(
        "../../../../tests/fixtures/compat/dashboard_tools__aug_warming_placeholder.json"
    );
    const AUG_RUNTIME: &[u8] = include_bytes!(
        "../../../../tests/fixtures/compat/runtime_resolved__aug_catalogue_without_newer_parts.json"
    );

    fn ok<T>(value: T) -> Result<Admitted<T>, ClientError> {
        Ok(Admitted {
            value: Arc::new(value),
            mode: AdmissionMode::Health,
            from_cache: false,
        })
    }

    fn deliver<S: SlotKey + Clone, P: Send + 'static>(
        m: &mut Model,
        slot: S,
        generation: u64,
        payload: P,
    ) {
        let t = Ticket {
            slot,
            generation,
            scope: sample::scope(1),
        };
        m.deliver(SlotEvent::<_, P>::Dispatched(t.clone()), Instant::now());
        let drained = m.deliver(SlotEvent::Observed(t, payload), Instant::now());
        assert!(drained.rejected.is_empty(), "{:?}", drained.rejected);
    }

    fn screen(m: &Model, pane: SystemPane, tab: Tab) -> String {
        let ui = Ui {
            area: Rect::new(0, 0, 120, 40),
            tab,
            ..Ui::default()
        }
        .with_screen(super::super::SystemUi {
            pane,
            ..Default::default()
        });
        let mut t = Terminal::new(TestBackend::new(120, 40)).unwrap();
        let ctx = ProjectionCtx::now(Theme::plain());
        t.draw(|f| render(m, &ui, &ctx, f.area(), f.buffer_mut()))
            .unwrap();
        buffer_text(t.backend().buffer())
    }

    fn model() -> Model {
        let mut m = Model::default();
        m.on_identity(sample::confirmed(1, AdmissionMode::Health));
        m
    }

    /// An August MASC: the first read is the warming placeholder, the next a settled inventory
    /// without `effective_keeper_surface` / `skill_activations`. The warming line clears and the
    /// pane is not "data unreliable" (T-4, G-5).
    #[test]
    fn the_warming_line_clears_on_a_settled_august_inventory_issue13_defect3() {
        let mut m = model();
        deliver(
            &mut m,
            ToolsSlot::ToolsInventory,
            1,
            ToolsObservation::ToolsInventory(ok(ToolsInventoryRead::decode(AUG_WARMING).unwrap())),
        );
        let warming = screen(&m, SystemPane::Tools, Tab::System);
        assert!(warming.contains("warming") && !warming.contains("registered"));
        deliver(
            &mut m,
            ToolsSlot::ToolsInventory,
            2,
            ToolsObservation::ToolsInventory(ok(ToolsInventoryRead::decode(AUG_TOOLS).unwrap())),
        );
        let settled = screen(&m, SystemPane::Tools, Tab::System);
        assert!(settled.contains("ALL TOOLS  2 registered"), "{settled}");
        assert!(settled.contains("masc_task_list"));
        assert!(!settled.contains("warming"), "{settled}");
        assert!(!settled.contains("unreliable") && !settled.contains("read failed"));
    }

    /// An August runtime catalogue: the rest of the catalogue shows; lanes say `declared` is
    /// not sent; usage says it is not sent by this release — never "unreadable" (F-4). The
    /// Overview's quota line says the same, not "usage unreadable".
    #[test]
    fn an_august_runtime_catalogue_shows_with_only_the_missing_parts_unavailable_issue13_defect2() {
        let mut m = model();
        deliver(
            &mut m,
            RuntimeSlot::Catalogue,
            1,
            RuntimeObservation::Catalogue(Box::new(crate::actors::runtime::RuntimeLoad {
                resolved: ok(RuntimeResolved::decode(AUG_RUNTIME).unwrap()),
                // An August MASC has no probe route.
                probe: Err(crate::protocol::client::ClientError::NotServed {
                    route: crate::protocol::routes::RouteFamily::RuntimeProbe,
                }),
                forced: false,
            })),
        );
        let runtime = screen(&m, SystemPane::Runtime, Tab::System);
        assert!(
            runtime.contains("CATALOGUE  2 runtimes · 1 lanes"),
            "{runtime}"
        );
        assert!(runtime.contains("ollama.qwen3-coder"));
        assert!(runtime.contains("primary (declared: not sent by this MASC)"));
        assert!(runtime.contains("USAGE  not sent by this MASC release"));
        assert!(!runtime.contains("unreadable"), "{runtime}");
        let overview = screen(&m, SystemPane::Runtime, Tab::Overview);
        assert!(
            overview.contains("not reported by this MASC release"),
            "{overview}"
        );
        assert!(!overview.contains("usage unreadable"));
    }
}
