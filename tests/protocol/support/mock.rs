//! A small scripted HTTP server for the client tests (axum). Each route is a closure of the
//! request and its 0-based hit number, returning a [`Reply`]: status, headers (any number of
//! receipts), a body sent in chunks, and how the body ends (cleanly, by aborting the
//! connection, or by stalling). A separate raw-TCP server closes connections after reading the
//! request body, for "dropped after the request left" writes.
#![allow(dead_code)]

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use masc_tui::protocol::admission::encode_root_header;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// One request as the mock received it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// Path and query, as sent (percent-encoding kept).
    pub target: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    }
    pub fn header_count(&self, name: &str) -> usize {
        self.headers.get_all(name).iter().count()
    }
}

/// How the body ends after its chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// Normal end of the body.
    End,
    /// The connection is aborted (the client sees an incomplete body).
    Abort,
    /// Nothing more is ever sent; the connection stays open.
    Stall,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub chunks: Vec<Bytes>,
    pub tail: Tail,
    /// Never answer at all (no status line).
    pub stall_head: bool,
    /// Pause between body chunks (the "delay between chunks" fault of §13).
    pub chunk_gap: Option<Duration>,
}

impl Reply {
    pub fn status(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            chunks: Vec::new(),
            tail: Tail::End,
            stall_head: false,
            chunk_gap: None,
        }
    }
    pub fn json(status: u16, body: &str) -> Self {
        Self::status(status)
            .header("content-type", "application/json")
            .body(body)
    }
    pub fn sse(chunks: &[&str]) -> Self {
        let mut reply = Self::status(200)
            .header("content-type", "text/event-stream")
            .header("cache-control", "no-cache");
        reply.chunks = chunks
            .iter()
            .map(|c| Bytes::copy_from_slice(c.as_bytes()))
            .collect();
        reply
    }
    /// Never sends a response head.
    pub fn stall() -> Self {
        let mut reply = Self::status(200);
        reply.stall_head = true;
        reply
    }
    pub fn body(mut self, body: &str) -> Self {
        self.chunks = vec![Bytes::copy_from_slice(body.as_bytes())];
        self
    }
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
    /// One `X-MASC-Workspace-Receipt` naming `root` (§2.2 encoding); call twice for two.
    pub fn receipt(self, root: &str) -> Self {
        let encoded = encode_root_header(root);
        self.header("x-masc-workspace-receipt", &encoded)
    }
    pub fn etag(self, tag: &str) -> Self {
        self.header("etag", tag)
    }
    pub fn tail(mut self, tail: Tail) -> Self {
        self.tail = tail;
        self
    }
    pub fn chunk_gap(mut self, gap: Duration) -> Self {
        self.chunk_gap = Some(gap);
        self
    }
}

type Handler = Arc<dyn Fn(&Seen, usize) -> Reply + Send + Sync>;

#[derive(Default)]
struct MockState {
    routes: Mutex<HashMap<(String, String), Handler>>,
    seen: Mutex<Vec<Seen>>,
}

/// The scripted server; stops when dropped.
pub struct MockServer {
    pub base_url: String,
    state: Arc<MockState>,
    task: JoinHandle<()>,
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn path_of(target: &str) -> String {
    target.split('?').next().unwrap_or(target).to_string()
}

impl MockServer {
    pub async fn start() -> Self {
        let state = Arc::new(MockState::default());
        let app = axum::Router::new()
            .fallback(dispatch)
            .with_state(Arc::clone(&state));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            base_url: format!("http://{addr}"),
            state,
            task,
        }
    }

    /// Script `method path` (path without query; the closure sees the full target).
    pub fn route(
        &self,
        method: &str,
        path: &str,
        handler: impl Fn(&Seen, usize) -> Reply + Send + Sync + 'static,
    ) {
        self.state
            .routes
            .lock()
            .unwrap()
            .insert((method.to_string(), path.to_string()), Arc::new(handler));
    }

    /// Requests received on `path` (any method).
    pub fn seen(&self, path: &str) -> Vec<Seen> {
        self.state
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|s| path_of(&s.target) == path)
            .cloned()
            .collect()
    }

    pub fn hits(&self, path: &str) -> usize {
        self.seen(path).len()
    }
}

async fn dispatch(State(state): State<Arc<MockState>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let target = parts
        .uri
        .path_and_query()
        .map(|pq| pq.as_str().to_string())
        .unwrap_or_else(|| parts.uri.path().to_string());
    let seen = Seen {
        method: parts.method.as_str().to_string(),
        target: target.clone(),
        headers: parts.headers.clone(),
        body,
    };
    let key = (seen.method.clone(), path_of(&target));
    let hit = {
        let mut all = state.seen.lock().unwrap();
        let n = all
            .iter()
            .filter(|s| s.method == seen.method && path_of(&s.target) == key.1)
            .count();
        all.push(seen.clone());
        n
    };
    let handler = state.routes.lock().unwrap().get(&key).cloned();
    let reply = match handler {
        Some(handler) => handler(&seen, hit),
        None => Reply::json(404, r#"{"error":"no such mock route"}"#),
    };
    if reply.stall_head {
        std::future::pending::<()>().await;
    }
    render(reply)
}

fn render(reply: Reply) -> Response {
    let Reply {
        status,
        headers,
        chunks,
        tail,
        chunk_gap,
        ..
    } = reply;
    let body = if tail == Tail::End && chunks.len() <= 1 && chunk_gap.is_none() {
        Body::from(chunks.into_iter().next().unwrap_or_default())
    } else {
        let stream = async_stream::stream! {
            for (i, chunk) in chunks.into_iter().enumerate() {
                if i > 0 && let Some(gap) = chunk_gap {
                    tokio::time::sleep(gap).await;
                }
                yield Ok::<Bytes, std::io::Error>(chunk);
            }
            match tail {
                Tail::End => {}
                Tail::Abort => {
                    // Pending once so hyper flushes the head and chunks already written;
                    // an error on the very next poll would drop them unsent.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    yield Err(std::io::Error::other("mock aborts the body"));
                }
                Tail::Stall => std::future::pending::<()>().await,
            }
        };
        Body::from_stream(stream)
    };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::from_u16(status).unwrap();
    for (name, value) in headers {
        response.headers_mut().append(
            HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(&value).unwrap(),
        );
    }
    response
}

/// A server that reads each request (head and `content-length` body) and then closes the
/// connection without answering: the request provably left the client.
pub struct DropAfterBody {
    pub base_url: String,
    /// Requests whose body was read completely.
    pub bodies_read: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

impl Drop for DropAfterBody {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl DropAfterBody {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let bodies_read = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&bodies_read);
        let task = tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let counter = Arc::clone(&counter);
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    let head_end = loop {
                        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            break i + 4;
                        }
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    };
                    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    while buf.len() < head_end + length {
                        match socket.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                    }
                    counter.fetch_add(1, Ordering::SeqCst);
                    let _ = socket.shutdown().await;
                });
            }
        });
        Self {
            base_url: format!("http://{addr}"),
            bodies_read,
            task,
        }
    }
}

/// An address where nothing listens (bound, then released).
pub async fn refused_base_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}
