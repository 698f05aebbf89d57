//! The accept loop: hyper http1 per connection, with a kill switch the fault layer uses to
//! close a connection without any response (`{"drop": …}` faults).

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// Request extension: cancelling it drops this request's connection at once.
#[derive(Clone)]
pub(crate) struct ConnKill(pub CancellationToken);

pub(crate) async fn serve(listener: TcpListener, app: Router, shutdown: CancellationToken) {
    loop {
        tokio::select! {
            biased;
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => spawn_connection(stream, app.clone(), shutdown.clone()),
                Err(err) => {
                    tracing::warn!(error = %err, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            },
        }
    }
}

fn spawn_connection(stream: TcpStream, app: Router, shutdown: CancellationToken) {
    tokio::spawn(async move {
        let kill = CancellationToken::new();
        let kill_for_requests = kill.clone();
        let tower = TowerToHyperService::new(app);
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut()
                .insert(ConnKill(kill_for_requests.clone()));
            let req = req.map(Body::new);
            hyper::service::Service::call(&tower, req)
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .serve_connection(TokioIo::new(stream), service);
        tokio::select! {
            biased;
            _ = kill.cancelled() => {
                tracing::info!(target: "masc_tui::server::fault", "connection dropped without response");
            }
            _ = shutdown.cancelled() => {}
            result = conn => {
                if let Err(err) = result {
                    tracing::debug!(error = %err, "connection ended with error");
                }
            }
        }
    });
}
