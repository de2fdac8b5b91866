//! Logs and traces of a running service. Logs go to stderr. Traces are
//! OpenTelemetry spans, exported over OTLP/gRPC when an endpoint is
//! configured (`--otlp` or `OTEL_EXPORTER_OTLP_ENDPOINT`); trace contexts
//! travel as W3C `traceparent` in gRPC metadata and NATS message headers, so
//! one trace follows a command from its caller into the log and on to the
//! services that react to it.

use std::collections::HashMap;

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Keeps the tracer provider; dropping it flushes the spans still queued.
#[derive(Debug)]
pub struct Telemetry {
    provider: SdkTracerProvider,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

/// Sets up logging and tracing for a service (inside a tokio runtime).
pub fn init(
    service: &'static str,
    otlp: Option<&str>,
) -> Result<Telemetry, crate::serve::ServeError> {
    let failed = |e: &dyn std::fmt::Display| crate::serve::ServeError::Telemetry(e.to_string());
    let mut builder = SdkTracerProvider::builder();
    if let Some(endpoint) = otlp {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_tonic()
            .with_endpoint(endpoint)
            .build()
            .map_err(|e| failed(&e))?;
        builder = builder.with_batch_exporter(exporter);
    }
    let provider = builder.build();
    let tracer = provider.tracer(service);
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())),
        )
        .with(tracing_opentelemetry::layer().with_tracer(tracer))
        .try_init()
        .map_err(|e| failed(&e))?;
    Ok(Telemetry { provider })
}

struct Metadata<'a>(&'a tonic::metadata::MetadataMap);

impl Extractor for Metadata<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0
            .keys()
            .filter_map(|k| match k {
                tonic::metadata::KeyRef::Ascii(k) => Some(k.as_str()),
                tonic::metadata::KeyRef::Binary(_) => None,
            })
            .collect()
    }
}

/// Makes the caller's trace (its `traceparent` metadata) the parent of `span`.
pub fn follow_caller(span: &tracing::Span, metadata: &tonic::metadata::MetadataMap) {
    let parent = TraceContextPropagator::new().extract(&Metadata(metadata));
    let _ = span.set_parent(parent);
}

struct Headers(HashMap<String, String>);

impl Injector for Headers {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_string(), value);
    }
}

/// The W3C `traceparent` of `span`, to carry on.
pub fn traceparent(span: &tracing::Span) -> Option<String> {
    let mut headers = Headers(HashMap::new());
    TraceContextPropagator::new().inject_context(&span.context(), &mut headers);
    headers.0.remove("traceparent")
}
