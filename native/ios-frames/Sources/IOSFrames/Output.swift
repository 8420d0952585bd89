// The helper's stdout: protocol lines and frame payloads, written in order, frames coalesced.
import Foundation

/// Everything goes to stdout through one serial queue, so a line and its frame payload are never
/// split by another write. Change frames wait in a one-slot mailbox: when the worker reads slower
/// than frames come, the newest replaces the unsent one (counted as dropped). Snapshot answers and
/// control lines are never dropped.
final class Output {
    private let queue = DispatchQueue(label: "simfleet.ios-frames.stdout")
    private let lock = NSLock()
    private var pending: (header: [String: Any], payload: Data)?
    private var draining = false
    private var droppedFrames = 0

    var dropped: Int {
        lock.lock()
        defer { lock.unlock() }
        return droppedFrames
    }

    func send(_ verb: String, _ body: [String: Any], payload: Data? = nil) {
        queue.async { self.write(verb, body, payload) }
    }

    func sendChangeFrame(_ header: [String: Any], _ payload: Data) {
        lock.lock()
        if pending != nil { droppedFrames += 1 }
        pending = (header, payload)
        let start = !draining
        draining = true
        lock.unlock()
        if start { queue.async { self.drainOne() } }
    }

    /// Writes what has been queued so far (before exiting).
    func flush() {
        queue.sync {}
    }

    /// One frame per turn of the queue, so control lines queued meanwhile are not held back.
    private func drainOne() {
        lock.lock()
        guard let next = pending else {
            draining = false
            lock.unlock()
            return
        }
        pending = nil
        lock.unlock()
        write("frame", next.header, next.payload)
        queue.async { self.drainOne() }
    }

    private func write(_ verb: String, _ body: [String: Any], _ payload: Data?) {
        var body = body
        if let payload { body["bytes"] = payload.count }
        guard let json = try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]) else { return }
        var data = Data((verb + " ").utf8)
        data.append(json)
        data.append(0x0A)
        if let payload { data.append(payload) }
        do {
            try FileHandle.standardOutput.write(contentsOf: data)
        } catch {
            exit(0) // the worker has gone
        }
    }
}

