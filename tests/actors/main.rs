//! Actor-level integration tests: every source actor (keepers roster, workspace, runtime, system,
//! board, connectors, work list/detail, chat hub and sources, the outbox across a process death)
//! driven through the supervisor, mostly against the embedded server with fault plans.
//!
//! One test binary; each module is one former `tests/<name>.rs` file (test names keep their
//! rule ids). Shared rigs are declared here once.

mod actor_support;
mod chat_support;
mod crash_rig;
mod decisions_rig;
mod model_rig;
mod ordered_view;
mod runtime_save_rig;
mod save_approval;
mod save_approval_crash;
mod save_approval_expiring;
mod save_approval_model;
mod save_approval_results;
mod save_ask_answer;
mod save_ask_answer_crash;
mod save_held_call;
mod save_keeper_create;
mod save_keeper_lifecycle;
mod save_keeper_ops;
mod save_keeper_settings;
mod save_rig;
mod save_runtime_form;
mod save_runtime_raw;
mod save_runtime_raw_crash;
mod save_turn_control;
mod settle_faults;
mod settle_live;
mod surface_rig;
mod tools_rig;
mod view_log;
mod work_rig;

mod actor_activity;
mod actor_board;
mod actor_connectors;
mod actor_gate_queue;
mod actor_inspector;
mod actor_keeper_detail;
mod actor_keepers_roster;
mod actor_preparation_report;
mod actor_runtime;
mod actor_runtime_catalogue;
mod actor_system;
mod actor_system_logs;
mod actor_waiting;
mod actor_workspace;
mod asks_follow_up;
mod chat_admission;
mod chat_batch;
mod chat_outbox;
mod chat_protocol;
mod chat_reopen;
mod chat_resume;
mod chat_saves;
mod chat_source;
mod chat_unknown_window;
mod compat_fallbacks;
mod connectors_write_demand;
mod fleet_watch;
mod journal_restored;
mod save_board_post;
mod save_board_vote;
mod save_connector_binding;
mod save_goal_transition;
mod tools_keeper_surface;
mod tools_request;
mod work_goals;
mod work_restart;
mod work_task_detail;
mod work_task_history;
