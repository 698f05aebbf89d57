//! Shared helpers of the embedded-server test files: a default server and plain reqwest calls
//! carrying the token and the `X-MASC-Agent` header.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test rig

use masc_tui::server::{RunningServer, ServeOptions, start};
use reqwest::StatusCode;
use serde_json::Value;

pub async fn server() -> RunningServer {
    start(ServeOptions::default()).await.unwrap()
}

pub fn req(s: &RunningServer, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
    let mut rb = reqwest::Client::new().request(method, format!("{}{}", s.base_url(), path));
    if let Some(t) = s.token() {
        rb = rb.bearer_auth(t);
    }
    rb.header("X-MASC-Agent", "masc-tui")
}

pub async fn get(s: &RunningServer, path: &str) -> (StatusCode, Value) {
    let r = req(s, reqwest::Method::GET, path).send().await.unwrap();
    (r.status(), r.json().await.unwrap())
}

pub async fn post(s: &RunningServer, path: &str, body: Value) -> (StatusCode, Value) {
    let r = req(s, reqwest::Method::POST, path)
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap())
}
