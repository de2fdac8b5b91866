//! Browsers: every service answers gRPC-Web (`application/grpc-web`, binary
//! or text) on its gRPC port, through tonic-web, and the CORS answers a page
//! on another origin needs before it may call. gRPC calls are authorised by
//! the bearer token a page sends in `authorization`, never by a cookie, so
//! any origin may call: the token is what is checked.

use std::time::Duration;

use tonic::codegen::http::{HeaderName, Method, header};
use tonic::service::Routes;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The request headers a gRPC-Web or Connect client sends.
const ALLOWED: [HeaderName; 6] = [
    header::CONTENT_TYPE,
    header::AUTHORIZATION,
    HeaderName::from_static("x-grpc-web"),
    HeaderName::from_static("x-user-agent"),
    HeaderName::from_static("grpc-timeout"),
    HeaderName::from_static("traceparent"),
];

/// The response headers a page must read: a call's status and a refusal's
/// reasons (its `google.rpc.ErrorInfo` in the details, and the same in
/// felt's own metadata).
const EXPOSED: [HeaderName; 6] = [
    HeaderName::from_static("grpc-status"),
    HeaderName::from_static("grpc-message"),
    HeaderName::from_static("grpc-status-details-bin"),
    HeaderName::from_static("felt-rejection"),
    HeaderName::from_static("felt-error-kind"),
    HeaderName::from_static("felt-rule"),
];

/// CORS for the gRPC routes: any origin, gRPC's methods and headers.
fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::any())
        .allow_methods([Method::POST, Method::GET, Method::OPTIONS])
        .allow_headers(ALLOWED)
        .expose_headers(EXPOSED)
        .max_age(PREFLIGHT_MAX_AGE)
}

/// The gRPC services answering gRPC-Web too, behind `pages` (the room
/// display's HTTP/1.1 routes, where served): tonic-web refuses every other
/// HTTP/1.1 request, so it sees only what the pages do not answer.
/// CORS covers the gRPC routes only: the pages are same-origin (and hold
/// a cookie).
pub(crate) fn routes(grpc: Routes, pages: Option<axum::Router>) -> Routes {
    let grpc = tower::ServiceBuilder::new()
        .layer(cors())
        .layer(tonic_web::GrpcWebLayer::new())
        .service(grpc);
    Routes::from(pages.unwrap_or_default().fallback_service(grpc))
}
