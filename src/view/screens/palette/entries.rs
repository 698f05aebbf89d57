//! What the palette offers, as values: the surfaces and panes to go to, the Keepers to open,
//! and every key of what is in front — made from the binding tables the help and the footer
//! are made from, so the palette never lists a key the dispatch does not take.

use crate::view::bindings::{Binding, Press, RING, Table};
use crate::view::model::Model;
use crate::view::screens::keepers::keys::KeeperOpen;
use crate::view::screens::system::SystemPane;
use crate::view::screens::widgets::Ring;
use crate::view::screens::work::WorkPane;
use crate::view::screens::{Tab, Ui, layer};
use crate::view::text::sanitize_line;

/// The key that opens the palette (it is not offered in it).
pub const PALETTE_KEY: char = ':';

/// What choosing an entry does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Act {
    Tab(Tab),
    SystemPane(SystemPane),
    WorkPane(WorkPane),
    /// The Approvals and questions view over the surface in front.
    Approvals,
    /// The durable Gate queue (§15.3) over the surface in front.
    GateQueue,
    /// The saves journal.
    Journal,
    /// A Keeper's chat or detail; `loaded`: on the roster page read (else asked of the server).
    Keeper {
        name: String,
        open: KeeperOpen,
        loaded: bool,
    },
    /// The workspace picker, on this configured workspace.
    Workspace(crate::actors::fleet::FleetName),
    /// A key of what is in front, pressed as the operator would press it (an armed key still
    /// previews first; a key that asks for a second one waits for it).
    Press(Press),
}

/// One line of the palette: what it says, the key it stands for (if any), what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub label: String,
    /// The key shown at the right (`p`, `Enter`): what the entry presses.
    pub keys: Option<String>,
    pub act: Act,
}

impl Entry {
    fn go(label: String, act: Act) -> Self {
        Self {
            label,
            keys: None,
            act,
        }
    }
}

/// The entries offered over what is in front of `ui`: with a layer open, that layer's keys
/// only (what is below it is not reachable without closing it); else every surface and pane,
/// every Keeper of the loaded roster (chat and detail), and the keys of the surface in front
/// and of the ring.
pub fn offered(ui: &Ui, model: &Model) -> Vec<Entry> {
    if let Some(help) = layer::top_down(ui, |l| l.help()) {
        let mut out = keys_of(help.table);
        if help.ring {
            out.extend(keys_of(&RING));
        }
        return out;
    }
    let mut out = places();
    for member in &model.fleet.roster.members {
        out.push(Entry::go(
            format!("workspace {}", sanitize_line(&member.name.0)),
            Act::Workspace(member.name.clone()),
        ));
    }
    for name in roster_names(model) {
        for open in [KeeperOpen::Chat, KeeperOpen::Detail] {
            out.push(keeper_entry(&name, open, true));
        }
    }
    for table in ui.screens.of(ui.tab).bindings() {
        out.extend(keys_of(table));
    }
    out.extend(keys_of(&RING));
    out
}

/// The entries `query` adds to what is offered: `keeper <name>` for a name not on the loaded
/// page (asked only while the server has more Keepers than the page holds, as `/` asks).
pub fn typed(query: &str, offered: &[Entry]) -> Vec<Entry> {
    let Some(name) = query.trim_start().strip_prefix("keeper ").map(str::trim) else {
        return Vec::new();
    };
    if name.is_empty() {
        return Vec::new();
    }
    let loaded = offered
        .iter()
        .any(|e| matches!(&e.act, Act::Keeper { name: n, .. } if n == name));
    if loaded {
        return Vec::new();
    }
    [KeeperOpen::Chat, KeeperOpen::Detail]
        .into_iter()
        .map(|open| keeper_entry(name, open, false))
        .collect()
}

fn keeper_entry(name: &str, open: KeeperOpen, loaded: bool) -> Entry {
    let what = match open {
        KeeperOpen::Chat => "chat",
        KeeperOpen::Detail => "detail",
    };
    let label = if loaded {
        format!("keeper {} · {what}", sanitize_line(name))
    } else {
        format!(
            "keeper {} · {what} (not loaded: ask the server)",
            sanitize_line(name)
        )
    };
    Entry::go(
        label,
        Act::Keeper {
            name: name.to_string(),
            open,
            loaded,
        },
    )
}

/// Every surface of the ring and every pane of one.
fn places() -> Vec<Entry> {
    let mut out = Vec::new();
    for &tab in <Tab as Ring>::RING {
        out.push(Entry::go(format!("go to {}", tab.title()), Act::Tab(tab)));
        match tab {
            Tab::Work => {
                for (pane, title) in [(WorkPane::Goals, "Goals"), (WorkPane::Tasks, "Tasks")] {
                    out.push(Entry::go(
                        format!("go to Work › {title}"),
                        Act::WorkPane(pane),
                    ));
                }
            }
            Tab::System => {
                for pane in SystemPane::ALL {
                    out.push(Entry::go(
                        format!("go to System › {}", pane.title()),
                        Act::SystemPane(pane),
                    ));
                }
            }
            _ => {}
        }
    }
    out.push(Entry::go(
        "open Approvals and questions".into(),
        Act::Approvals,
    ));
    out.push(Entry::go("open the Gate queue".into(), Act::GateQueue));
    out.push(Entry::go("open the saves journal".into(), Act::Journal));
    out
}

/// The names of the loaded roster page, in its order.
fn roster_names(model: &Model) -> Vec<String> {
    let rows = model
        .keepers
        .roster
        .fetched
        .last()
        .map_or(0, |o| o.value.rows.len());
    (0..rows)
        .filter_map(|i| crate::view::screens::keepers::operations::row_name(model, i))
        .collect()
}

/// The keys of a table, one entry per key where a binding names several keys that each do one
/// of its parts (`c / x / o` request completion / drop / reopen); bindings the help lists
/// without a press of their own (`r` the global r, "any other key") are not offered, nor the
/// palette's own key.
pub fn keys_of(table: &Table) -> Vec<Entry> {
    table
        .bindings
        .iter()
        .filter(|b| !b.presses.contains(&Press::ch(PALETTE_KEY)))
        .flat_map(split)
        .collect()
}

fn split(binding: &Binding) -> Vec<Entry> {
    let Some(&first) = binding.presses.first() else {
        return Vec::new();
    };
    let group = binding.keys.split(", ").next().unwrap_or(binding.keys);
    let names: Vec<&str> = group.split(" / ").collect();
    let parts: Vec<&str> = binding.does.split(" / ").collect();
    if names.len() > 1 && names.len() == binding.presses.len() && parts.len() == names.len() {
        return names
            .iter()
            .zip(parts)
            .zip(binding.presses)
            .map(|((name, does), press)| Entry {
                label: does.to_string(),
                keys: Some(name.to_string()),
                act: Act::Press(*press),
            })
            .collect();
    }
    vec![Entry {
        label: binding.does.to_string(),
        keys: Some(binding.keys.to_string()),
        act: Act::Press(first),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::bindings::bind;

    #[test]
    fn a_binding_of_several_keys_with_as_many_parts_is_one_entry_per_key() {
        const B: Binding = bind(
            "c / x / o",
            &[Press::ch('c'), Press::ch('x'), Press::ch('o')],
            "request completion / drop / reopen (armed)",
        );
        let b = B;
        let entries = split(&b);
        let labels: Vec<(&str, &str)> = entries
            .iter()
            .map(|e| (e.keys.as_deref().unwrap_or(""), e.label.as_str()))
            .collect();
        assert_eq!(
            labels,
            vec![
                ("c", "request completion"),
                ("x", "drop"),
                ("o", "reopen (armed)")
            ]
        );
        assert_eq!(entries[1].act, Act::Press(Press::ch('x')));
        // Keys that only move (four presses, two named parts) stay one entry on the first.
        const MOVES: Binding = bind(
            "j / k, Down / Up",
            &[Press::ch('j'), Press::ch('k')],
            "move the selection",
        );
        let moves = MOVES;
        assert_eq!(split(&moves).len(), 1);
        assert!(split(&bind("r", &[], "the global r")).is_empty());
    }
}
