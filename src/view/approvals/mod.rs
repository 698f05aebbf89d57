//! The Approvals surface's models: the operator approvals and open asks awaiting a decision
//! ([`decisions`]) and what became of each answered Ask ([`asks`]).

pub mod asks;
pub mod decisions;
