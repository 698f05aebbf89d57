//! View integration tests without a server: the view actor, admission, fetched states, each
//! screen's projection and keys (Keepers, Work, Board, System, chat transcript and screen), and
//! the composer.
//!
//! One test binary; each module is one former `tests/<name>.rs` file (test names keep their
//! rule ids). Shared rigs are declared here once.

mod rig;
mod work_build;

mod chat_approvals;
mod chat_batch;
mod chat_held_calls;
mod chat_newer_store;
mod chat_preparation_report;
mod chat_progress;
mod chat_projection;
mod chat_projection_modes;
mod chat_screen;
mod chat_send_rows;
mod chat_tool_rows;
mod chat_turn_control;
mod chat_turn_esc;
mod compat_not_served;
mod composer_behaviour;
mod composer_editing;
mod composer_props;
mod composer_render;
mod keeper_ops_keys;
mod view_activity;
mod view_actor;
mod view_admission;
mod view_approvals;
mod view_asks;
mod view_async_runs;
mod view_bindings;
mod view_board;
mod view_board_compose;
mod view_board_rules;
mod view_confirm;
mod view_editor;
mod view_fetched_states;
mod view_gate_queue;
mod view_help_keys;
mod view_keeper_create;
mod view_keeper_detail;
mod view_keeper_settings;
mod view_keeper_unbind;
mod view_mouse;
mod view_palette;
mod view_roster_reach;
mod view_runtime;
mod view_runtime_form;
mod view_runtime_raw;
mod view_settle;
mod view_sources;
mod view_system;
mod view_system_logs;
// Chat keys, help, footer wording (C-26, C-63, C-65): next to chat_screen.rs, whose rig it uses.
mod chat_screen_help;
// Chat geometry: menu minimum, 41-column gate (C-19, C-62).
mod chat_layout;
// /find, /copy, /queue, /context (C-31, C-74).
mod chat_find;
// §14.11: the `/context` tabs and the `O` inspector's record and input tabs.
mod chat_context_tabs;
mod view_turn_inspector;
mod view_waiting;
mod view_workspaces;
// Date rows, mid-stream rows, repeated-row fold (C-24, C-67).
mod chat_stream_rows;
mod view_text;
mod view_tools_keeper_panes;
mod wide_cells;
mod work_layout;
mod work_screens;
