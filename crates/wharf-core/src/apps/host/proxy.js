// The sandbox proxy: the page between the app and a view, on an origin of its own. It frames the view (from the view
// origin, sandboxed: scripts and forms, no same-origin, so the view's origin is opaque and it keeps nothing), tells
// the app it is ready, and relays JSON-RPC messages both ways, checking each one's sender: the app's messages come
// from the parent window and the app's origin, the view's from the view's window. It makes no request of its own.
(function () {
  "use strict";
  var body = document.body;
  var viewUrl = body.getAttribute("data-view-url");
  var appOrigin = body.getAttribute("data-app-origin");
  if (!viewUrl || !appOrigin || window.parent === window) {
    return;
  }
  var frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts allow-forms");
  frame.setAttribute("allow", "");
  frame.setAttribute("referrerpolicy", "no-referrer");
  frame.setAttribute("title", "view");

  // The view's own page loads once. Another load is the frame navigating (its embedder's policy allows only the
  // view origin, so it can only be another page of it): whatever is in the frame now is not the view that was
  // bridged, so nothing more it posts is relayed, and the app is told.
  var loads = 0;
  var left = false;
  frame.addEventListener("load", function () {
    loads += 1;
    if (loads > 1 && !left) {
      left = true;
      window.parent.postMessage(
        { jsonrpc: "2.0", method: "ui/notifications/sandbox-view-navigated", params: {} },
        appOrigin
      );
    }
  });

  function isMessage(data) {
    return data !== null && typeof data === "object" && data.jsonrpc === "2.0";
  }

  function reserved(data) {
    return typeof data.method === "string" && data.method.indexOf("ui/notifications/sandbox-") === 0;
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!isMessage(data)) {
      return;
    }
    if (event.source === window.parent && event.origin === appOrigin) {
      if (!reserved(data) && frame.contentWindow) {
        // The view's origin is opaque: it cannot be named as a target, and only this frame is sent to.
        frame.contentWindow.postMessage(data, "*");
      }
    } else if (event.source === frame.contentWindow && !left) {
      if (!reserved(data)) {
        window.parent.postMessage(data, appOrigin);
      }
    }
  });

  frame.src = viewUrl;
  body.appendChild(frame);
  window.parent.postMessage(
    { jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} },
    appOrigin
  );
})();
