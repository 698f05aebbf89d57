//! A calm workspace: the ordinary seed without what asks for an operator — no Keeper in
//! error (the failing one is stopped with readable metadata), no pending operator approval, no
//! held tool call, no pending Gate row. `demo --workspaces N` seeds every workspace after the
//! first this way, so a fleet of them tells the one that needs attention from the ones that do not. Applied at
//! every start (each step is idempotent), after the seed.

use super::StoreError;
use rusqlite::Transaction;

/// Makes the seeded workspace calm (see the module docs). Returns how many rows changed.
pub fn apply(tx: &Transaction<'_>) -> Result<usize, StoreError> {
    let mut changed = tx.execute(
        "UPDATE keepers SET status = 'inactive', phase = 'stopped', health = 'stopped',
            agent_name = name, meta_error_json = NULL, census_detail = NULL,
            meta_json = json_object('name', name, 'trace_id', 'trace-' || name,
                'created_at', created_at, 'updated_at', updated_at)
         WHERE status = 'error'",
        [],
    )?;
    changed += tx.execute("DELETE FROM operator_approvals", [])?;
    changed += tx.execute("DELETE FROM held_tool_calls", [])?;
    changed += tx.execute("DELETE FROM gate_pending", [])?;
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::super::Store;

    #[test]
    fn a_calm_workspace_has_no_keeper_in_error_no_approval_and_no_held_call() {
        let store = Store::open_in_memory().unwrap();
        let count = |sql: &str| -> i64 {
            let guard = store.conn.lock().unwrap();
            guard.query_row(sql, [], |r| r.get(0)).unwrap()
        };
        let errors = "SELECT COUNT(*) FROM keepers WHERE status = 'error'";
        let approvals = "SELECT COUNT(*) FROM operator_approvals";
        let held = "SELECT COUNT(*) FROM held_tool_calls";
        assert!(count(errors) > 0 && count(approvals) > 0 && count(held) > 0);
        let keepers = count("SELECT COUNT(*) FROM keepers");
        assert!(store.apply_calm().unwrap() > 0);
        assert_eq!((count(errors), count(approvals), count(held)), (0, 0, 0));
        assert_eq!(
            count("SELECT COUNT(*) FROM keepers"),
            keepers,
            "no Keeper removed"
        );
        assert_eq!(
            count("SELECT COUNT(*) FROM keepers WHERE meta_json IS NULL"),
            0,
            "the stopped Keeper's metadata reads"
        );
        assert_eq!(store.apply_calm().unwrap(), 0, "idempotent");
    }
}
