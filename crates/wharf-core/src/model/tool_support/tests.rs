//! Against fakes of each runtime's API as it answers: the routes and bodies of Ollama, LM Studio (both of its
//! native APIs) and a llama.cpp server, each answering 404 to the others' routes, as the real ones do.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncWriteExt;

use super::*;

const TIMEOUT: Duration = Duration::from_secs(5);

/// A loopback server answering `routes` ("METHOD /path" -> JSON body, or a function of the request body); 404 with
/// Ollama's, LM Studio's or llama.cpp's usual text for anything else. Keeps every request line and body it saw.
struct Fake {
    base_url: String,
    seen: Arc<Mutex<Vec<(String, String)>>>,
}

type Route = Box<dyn Fn(&Value) -> Value + Send + Sync>;

async fn fake(routes: Vec<(&'static str, Route)>) -> Fake {
    let routes: Arc<HashMap<&'static str, Route>> = Arc::new(routes.into_iter().collect());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let routes = routes.clone();
            let seen = kept.clone();
            tokio::spawn(async move {
                let (line, body) = crate::test_http::read_request(&mut stream).await;
                seen.lock().unwrap().push((line.clone(), body.clone()));
                let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
                let (status, answer) = match routes.get(line.as_str()) {
                    Some(route) => ("200 OK", route(&request).to_string()),
                    None => ("404 Not Found", "404 page not found".to_string()),
                };
                let reply = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                     connection: close\r\n\r\n{answer}",
                    answer.len()
                );
                let _ = stream.write_all(reply.as_bytes()).await;
            });
        }
    });
    Fake {
        base_url: format!("http://{addr}/v1"),
        seen,
    }
}

fn models(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// Ollama 0.6 and later: `/api/show` of a model, its capabilities among much else.
fn ollama() -> Vec<(&'static str, Route)> {
    vec![
        (
            "GET /v1/models",
            Box::new(|_: &Value| {
                json!({"object": "list", "data": [
                    {"id": "qwen3:4b", "object": "model", "created": 1733000000, "owned_by": "library"},
                    {"id": "gemma2:2b", "object": "model", "created": 1733000000, "owned_by": "library"},
                    {"id": "llama2:7b", "object": "model", "created": 1733000000, "owned_by": "library"}]})
            }),
        ),
        (
            "POST /api/show",
            Box::new(|request: &Value| {
                let details = json!({"parent_model": "", "format": "gguf", "family": "qwen3",
                                     "parameter_size": "4.0B", "quantization_level": "Q4_K_M"});
                match request["model"].as_str() {
                    Some("qwen3:4b") => {
                        json!({"modelfile": "FROM ...", "template": "{{ .Prompt }}",
                        "details": details, "model_info": {"general.architecture": "qwen3"},
                        "capabilities": ["completion", "tools", "thinking"]})
                    }
                    Some("gemma2:2b") => json!({"modelfile": "FROM ...", "details": details,
                        "capabilities": ["completion"]}),
                    // An Ollama older than capabilities: no list at all.
                    _ => json!({"modelfile": "FROM ...", "details": details}),
                }
            }),
        ),
    ]
}

#[tokio::test]
async fn ollama_says_per_model_from_api_show() {
    let server = fake(ollama()).await;
    let listed = models(&["qwen3:4b", "gemma2:2b", "llama2:7b"]);
    let said = tool_support(
        &server.base_url,
        Some(RuntimeKind::Ollama),
        &listed,
        TIMEOUT,
    )
    .await;
    assert_eq!(said["qwen3:4b"], ToolSupport::Yes);
    assert_eq!(said["gemma2:2b"], ToolSupport::No);
    assert_eq!(said["llama2:7b"], ToolSupport::Unknown);
    // Each model was asked by its name, on the runtime's root (not under /v1).
    let seen = server.seen.lock().unwrap().clone();
    let asked: Vec<&str> = seen
        .iter()
        .filter(|(line, _)| line == "POST /api/show")
        .map(|(_, body)| body.as_str())
        .collect();
    assert_eq!(asked.len(), 3, "{seen:?}");
    assert!(
        asked.iter().any(|b| b.contains("\"gemma2:2b\"")),
        "{asked:?}"
    );
}

#[tokio::test]
async fn lm_studio_says_from_its_v1_models_and_else_from_v0() {
    let v1 = fake(vec![(
        "GET /api/v1/models",
        Box::new(|_: &Value| {
            json!({"models": [
                {"type": "llm", "publisher": "qwen", "key": "qwen2.5-7b-instruct", "display_name": "Qwen2.5 7B",
                 "architecture": "qwen2", "quantization": {"name": "Q4_K_M", "bits_per_weight": 4},
                 "size_bytes": 4683073952u64, "params_string": "7B", "loaded_instances": [],
                 "max_context_length": 32768, "format": "gguf",
                 "capabilities": {"vision": false, "trained_for_tool_use": true}},
                {"type": "llm", "key": "phi-2", "format": "gguf",
                 "capabilities": {"vision": false, "trained_for_tool_use": false}},
                {"type": "embedding", "key": "text-embedding-nomic-embed-text-v1.5", "max_context_length": 2048}]})
        }) as Route,
    )])
    .await;
    let listed = models(&["qwen2.5-7b-instruct", "phi-2", "other"]);
    let said = tool_support(&v1.base_url, Some(RuntimeKind::LmStudio), &listed, TIMEOUT).await;
    assert_eq!(said["qwen2.5-7b-instruct"], ToolSupport::Yes);
    assert_eq!(said["phi-2"], ToolSupport::No);
    assert_eq!(said["other"], ToolSupport::Unknown);

    // LM Studio before 0.4: only the beta API, whose list names what a model has.
    let v0 = fake(vec![(
        "GET /api/v0/models",
        Box::new(|_: &Value| {
            json!({"object": "list", "data": [
                {"id": "qwen2.5-7b-instruct", "object": "model", "type": "llm", "publisher": "lmstudio-community",
                 "arch": "qwen2", "compatibility_type": "gguf", "quantization": "Q4_K_M", "state": "not-loaded",
                 "max_context_length": 32768, "capabilities": ["tool_use"]},
                {"id": "phi-2", "object": "model", "type": "llm", "state": "loaded", "capabilities": []},
                {"id": "old", "object": "model", "type": "llm", "state": "loaded"}]})
        }) as Route,
    )])
    .await;
    let listed = models(&["qwen2.5-7b-instruct", "phi-2", "old"]);
    let said = tool_support(&v0.base_url, Some(RuntimeKind::LmStudio), &listed, TIMEOUT).await;
    assert_eq!(said["qwen2.5-7b-instruct"], ToolSupport::Yes);
    assert_eq!(said["phi-2"], ToolSupport::No);
    assert_eq!(said["old"], ToolSupport::Unknown);
}

fn llama_cpp(supports_tools: bool) -> Vec<(&'static str, Route)> {
    vec![(
        "GET /props",
        Box::new(move |_: &Value| {
            json!({"default_generation_settings": {"n_ctx": 4096, "params": {"temperature": 0.8}},
                   "total_slots": 1, "model_path": "/models/model.gguf",
                   "chat_template": "{% for message in messages %}...{% endfor %}",
                   "chat_template_caps": {"supports_object_arguments": true, "supports_parallel_tool_calls": true,
                       "supports_string_content": true, "supports_system_role": true,
                       "supports_tool_calls": supports_tools, "supports_tools": supports_tools},
                   "modalities": {"vision": false, "audio": false}, "build_info": "b6100-1a2b3c4d"})
        }),
    )]
}

#[tokio::test]
async fn a_llama_cpp_server_says_for_the_model_it_serves() {
    for (supports, expected) in [(true, ToolSupport::Yes), (false, ToolSupport::No)] {
        let server = fake(llama_cpp(supports)).await;
        let said = tool_support(
            &server.base_url,
            Some(RuntimeKind::LlamaCpp),
            &models(&["model.gguf"]),
            TIMEOUT,
        )
        .await;
        assert_eq!(said["model.gguf"], expected);
    }
    // An older server without the template's capabilities does not say.
    let old = fake(vec![(
        "GET /props",
        Box::new(|_: &Value| json!({"total_slots": 1, "chat_template": "..."})) as Route,
    )])
    .await;
    let said = tool_support(&old.base_url, None, &models(&["m"]), TIMEOUT).await;
    assert_eq!(said["m"], ToolSupport::Unknown);
}

#[tokio::test]
async fn a_runtime_of_unknown_kind_is_recognised_by_the_api_that_answers() {
    let ollama = fake(ollama()).await;
    let said = tool_support(&ollama.base_url, None, &models(&["qwen3:4b"]), TIMEOUT).await;
    assert_eq!(said["qwen3:4b"], ToolSupport::Yes);
    let llama = fake(llama_cpp(false)).await;
    let said = tool_support(&llama.base_url, None, &models(&["x"]), TIMEOUT).await;
    assert_eq!(said["x"], ToolSupport::No);
}

#[tokio::test]
async fn nothing_is_asked_of_an_address_that_is_not_loopback_or_a_runtime_that_lies() {
    let said = tool_support(
        "http://192.0.2.1:11434/v1",
        Some(RuntimeKind::Ollama),
        &models(&["m"]),
        Duration::from_millis(200),
    )
    .await;
    assert_eq!(said["m"], ToolSupport::Unknown);
    // Capabilities of the wrong type are no answer.
    let liar = fake(vec![
        (
            "POST /api/show",
            Box::new(|_: &Value| json!({"capabilities": "tools"})) as Route,
        ),
        (
            "GET /props",
            Box::new(|_: &Value| json!({"chat_template_caps": {"supports_tools": "yes"}})),
        ),
    ])
    .await;
    let said = tool_support(&liar.base_url, None, &models(&["m"]), TIMEOUT).await;
    assert_eq!(said["m"], ToolSupport::Unknown);
}
