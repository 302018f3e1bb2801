use serde_json::json;

use super::*;

fn elicit(params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": params})
}

#[test]
fn an_elicitation_keeps_every_keyword_the_server_wrote() {
    let params = json!({"message": "m", "requestedSchema": {"type": "object", "$id": "x", "properties": {
        "code": {"type": "string", "pattern": "^[0-9]+$", "not": {"const": "0"}},
        "n": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5}}}});
    let out = screen(&elicit(params.clone())).unwrap();
    assert_eq!(out["method"], RAW_ELICITATION);
    assert_eq!(out["id"], 7);
    assert_eq!(out["params"]["params"], params);
    // rmcp hands it to the handler as an unknown request, params untouched.
    let message: rmcp::model::ServerJsonRpcMessage = serde_json::from_value(out).unwrap();
    let rmcp::model::JsonRpcMessage::Request(r) = message else {
        panic!("not a request")
    };
    let rmcp::model::ServerRequest::CustomRequest(custom) = r.request else {
        panic!("not passed as it is")
    };
    assert_eq!(custom.params.unwrap()["params"], params);
}

#[test]
fn a_request_whose_params_do_not_fit_is_refused_with_invalid_params() {
    for bad in [
        elicit(json!([1, 2])),
        elicit(json!("text")),
        json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create"}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": {"messages": 5}}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage", "params": [1]}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "roots/list", "params": "garbage"}),
        json!({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": [true]}),
    ] {
        let out = screen(&bad).unwrap_or_else(|| panic!("passed: {bad}"));
        assert_eq!(out["method"], REFUSED_REQUEST, "{bad}");
        assert_eq!(out["id"], 7);
        let refusal = Refusal::of(out.get("params"));
        assert_eq!(refusal.code, INVALID_PARAMS, "{bad}");
        assert_eq!(refusal.method, bad["method"]);
        assert!(!refusal.reason.is_empty());
        serde_json::from_value::<rmcp::model::ServerJsonRpcMessage>(out).unwrap();
    }
}

#[test]
fn unknown_and_private_methods_are_refused_as_unknown() {
    for bad in [
        json!({"jsonrpc": "2.0", "id": "a", "method": "vendor/thing", "params": [1]}),
        json!({"jsonrpc": "2.0", "id": "a", "method": RAW_ELICITATION, "params": {"params": {}}}),
        json!({"jsonrpc": "2.0", "id": "a", "method": REFUSED_REQUEST, "params": {"code": -32000}}),
    ] {
        let out = screen(&bad).unwrap();
        assert_eq!(out["method"], REFUSED_REQUEST);
        assert_eq!(
            Refusal::of(out.get("params")).code,
            METHOD_NOT_FOUND,
            "{bad}"
        );
    }
    // A refusal's code is one of the two Wharf uses, whatever the params say.
    let forged = json!({"code": -32000, "method": "x"});
    assert_eq!(Refusal::of(Some(&forged)).code, METHOD_NOT_FOUND);
}

#[test]
fn well_formed_requests_notifications_and_results_pass_untouched() {
    for fine in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "vendor/thing", "params": {"a": 1}}),
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": [1]}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}),
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}}),
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "input_required"}}),
        // An id a reply cannot carry: left for the transport to report.
        json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "elicitation/create", "params": []}),
        json!([1, 2]),
    ] {
        assert_eq!(screen(&fine), None, "{fine}");
    }
}

#[test]
fn an_input_required_result_travels_untouched_in_an_error() {
    let result = json!({"resultType": "input_required", "requestState": "s", "inputRequests": {
        "a": {"method": "elicitation/create", "params": {"message": "m", "requestedSchema":
            {"type": "object", "properties": [1]}}}}});
    let out = screen(&json!({"jsonrpc": "2.0", "id": 3, "result": result})).unwrap();
    let message: rmcp::model::ServerJsonRpcMessage = serde_json::from_value(out).unwrap();
    let rmcp::model::JsonRpcMessage::Error(e) = message else {
        panic!("not an error")
    };
    assert_eq!(
        input_required(e.error.code.0, e.error.data.as_ref()),
        Some(&result)
    );
    assert_eq!(input_required(-32000, e.error.data.as_ref()), None);
}

#[test]
fn sse_data_is_rewritten_only_when_it_must_be() {
    let data = elicit(json!({"message": "m", "requestedSchema": {"type": "object"}})).to_string();
    let out: Value = serde_json::from_str(&screen_sse_data(&data).unwrap()).unwrap();
    assert_eq!(out["method"], RAW_ELICITATION);
    assert_eq!(
        screen_sse_data(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        None
    );
    assert_eq!(screen_sse_data("not json \"method\""), None);
}
