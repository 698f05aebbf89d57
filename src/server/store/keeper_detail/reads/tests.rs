//! The keeper detail store's own tests: every seeded Keeper decodes with the client's
//! decoders, and the metrics tail is the newest rows, oldest first.

use super::super::SEED;
use super::*;
use crate::protocol::keeper_detail::{
    ContextObservation, KeeperStatus, LiveContext, MetricsRowKind, MetricsTail,
};
use crate::server::store::{SEED_EPOCH, Store};

async fn read<T: Send + 'static>(
    store: &Store,
    f: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
) -> T {
    store.read(f).await.unwrap()
}

fn found(r: DetailRead) -> Vec<u8> {
    match r {
        DetailRead::Found(v) => serde_json::to_vec(&v).unwrap(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn every_seeded_keeper_decodes_with_the_clients_decoders() {
    let store = Store::open_in_memory().unwrap();
    for d in SEED {
        let k = d.keeper;
        let status = read(&store, move |c| keeper_status(c, k, SEED_EPOCH as f64)).await;
        let context = read(&store, move |c| keeper_context(c, k)).await;
        let tail = read(&store, move |c| keeper_metrics_tail(c, k, 200)).await;
        if k == "juno" {
            assert!(matches!(status, DetailRead::MetaUnreadable(_)));
            assert!(matches!(context, DetailRead::MetaUnreadable(_)));
            assert!(matches!(tail, DetailRead::StoreUnreadable(_)));
            continue;
        }
        let s = KeeperStatus::decode_for(&found(status), k).unwrap();
        let c = LiveContext::decode_for(&found(context), k).unwrap();
        assert_eq!(s.context_owner(), c.owner(), "{k}: L-2 owner agrees");
        let t = MetricsTail::decode_for(&found(tail), k).unwrap();
        assert!(t.rows.len() <= 200);
        if k == "rondo" {
            assert!(
                t.rows
                    .iter()
                    .any(|r| matches!(r.kind, MetricsRowKind::Malformed(_)))
            );
            assert!(
                t.rows
                    .iter()
                    .any(|r| matches!(r.kind, MetricsRowKind::OtherKeeper(_)))
            );
            assert!(matches!(c.context, ContextObservation::Observed { .. }));
        }
        if k == "mira" {
            assert!(t.rows.is_empty(), "a real no-records store");
        }
    }
    let ghost = read(&store, |c| keeper_context(c, "ghost")).await;
    assert!(matches!(ghost, DetailRead::Unknown));
}

#[tokio::test]
async fn the_tail_is_the_newest_rows_oldest_first() {
    let store = Store::open_in_memory().unwrap();
    let all = read(&store, |c| metrics_of(c, "sangsu")).await;
    assert!(all.len() > 200);
    let tail = found(read(&store, |c| keeper_metrics_tail(c, "sangsu", 200)).await);
    let t = MetricsTail::decode_for(&tail, "sangsu").unwrap();
    assert_eq!(t.rows.len(), 200);
    let last: Value = serde_json::from_str(all.last().unwrap()).unwrap();
    let MetricsRowKind::Record(r) = &t.rows[199].kind else {
        panic!("newest row decodes")
    };
    assert_eq!(Some(r.ts.as_str()), last["ts"].as_str());
}
