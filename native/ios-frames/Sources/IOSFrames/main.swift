// simfleet-ios-frames: captures one iOS simulator's screen from its Simulator.app window with
// ScreenCaptureKit (a public macOS API) and sends the worker a frame only when the content changed,
// with ScreenCaptureKit's dirty rectangles as damage. It speaks PROTOCOL.md on stdin/stdout.
//
// Written from Apple's ScreenCaptureKit headers and documentation; it has NOT been compiled or run
// (simfleet is developed on Linux). README.md lists what to check first on a Mac.
import Foundation

let protocolVersion = 1
let helperVersion = "0.1.0"

signal(SIGPIPE, SIG_IGN)
let out = Output()
let capture = Capture(out: out)
let control = DispatchQueue(label: "simfleet.ios-frames.control")
var attachStarted = false // touched on `control` only

func report(_ e: HelperError, id: Int? = nil) {
    var body: [String: Any] = ["code": e.code, "message": e.message, "hint": e.hint, "fatal": e.fatal]
    if let id { body["id"] = id }
    out.send("error", body)
    if e.fatal {
        out.flush()
        exit(2)
    }
}

func handle(_ line: String) {
    guard let space = line.firstIndex(of: " "),
          let body = (try? JSONSerialization.jsonObject(with: Data(line[line.index(after: space)...].utf8))) as? [String: Any]
    else {
        return report(HelperError(code: "BAD_COMMAND", message: "not `verb {json}`: \(line.prefix(60))", hint: "see PROTOCOL.md", fatal: false))
    }
    switch String(line[..<space]) {
    case "attach":
        guard !attachStarted else {
            return report(HelperError(code: "BAD_COMMAND", message: "attach was already sent", hint: "one helper serves one simulator", fatal: false))
        }
        attachStarted = true
        Task {
            do {
                let info = try await capture.attach(body)
                out.send("attached", info)
            } catch let e as HelperError {
                report(e)
            } catch {
                report(HelperError(code: "CAPTURE_FAILED", message: "\(error)", hint: "see the helper's stderr", fatal: true))
            }
        }
    case "snapshot":
        let id = (body["id"] as? NSNumber)?.intValue ?? 0
        guard attachStarted else {
            return report(HelperError(code: "NOT_ATTACHED", message: "snapshot before attach", hint: "send attach first", fatal: false), id: id)
        }
        capture.snapshot(id: id)
    case "stats":
        capture.stats()
    case "quit":
        out.send("bye", [:])
        out.flush()
        exit(0)
    default:
        report(HelperError(code: "BAD_COMMAND", message: "unknown verb in: \(line.prefix(60))", hint: "see PROTOCOL.md", fatal: false))
    }
}

out.send("hello", ["protocol": protocolVersion, "helper": "simfleet-ios-frames", "version": helperVersion])

// readLine blocks, so stdin is read on a thread of its own; commands run in order on `control`.
Thread {
    while let line = readLine(strippingNewline: true) {
        control.async { handle(line) }
    }
    // stdin closed: the worker has gone.
    control.async {
        out.flush()
        exit(0)
    }
}.start()

dispatchMain()
