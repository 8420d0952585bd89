// One Simulator.app window captured with ScreenCaptureKit: complete frames with dirty rectangles
// become `frame` messages (JPEG at one pixel per point); idle reports are only counted.
import CoreGraphics
import CoreImage
import CoreMedia
import CoreVideo
import Foundation
import ImageIO
import ScreenCaptureKit
import UniformTypeIdentifiers

let simulatorBundleID = "com.apple.iphonesimulator"

struct HelperError: Error {
    let code: String
    let message: String
    let hint: String
    let fatal: Bool
}

final class Capture: NSObject, SCStreamOutput, SCStreamDelegate {
    private let out: Output
    private let samples = DispatchQueue(label: "simfleet.ios-frames.samples")
    private let ciContext = CIContext(options: [.cacheIntermediates: false])
    private var stream: SCStream?
    // Touched on `samples` only.
    private var latest: CVPixelBuffer?
    private var seq = 0
    private var sent = 0
    private var idle = 0
    private var encodeTimes: [Double] = []
    private var sentInitial = false

    init(out: Output) {
        self.out = out
    }

    func attach(_ req: [String: Any]) async throws -> [String: Any] {
        let number = { (key: String) in (req[key] as? NSNumber)?.doubleValue ?? 0 }
        guard let name = req["name"] as? String, let runtime = req["runtime"] as? String,
              number("widthPt") > 0, number("heightPt") > 0, number("widthPx") > 0, number("heightPx") > 0
        else {
            throw HelperError(code: "BAD_COMMAND", message: "attach needs udid, name, runtime, widthPt, heightPt, widthPx and heightPx", hint: "see PROTOCOL.md", fatal: false)
        }
        guard CGPreflightScreenCaptureAccess() else {
            throw HelperError(code: "PERMISSION", message: "Screen Recording is not granted to this helper", hint: "System Settings > Privacy & Security > Screen & System Audio Recording: allow simfleet-ios-frames (or the terminal or launchd job that starts the worker), then restart the worker", fatal: true)
        }
        let content: SCShareableContent
        do {
            content = try await SCShareableContent.excludingDesktopWindows(false, onScreenWindowsOnly: true)
        } catch {
            throw HelperError(code: "PERMISSION", message: "ScreenCaptureKit would not list the windows: \(error.localizedDescription)", hint: "grant Screen Recording to the helper and make sure a user is logged in to the Mac's desktop", fatal: true)
        }
        let simulators = content.windows.filter { $0.owningApplication?.bundleIdentifier == simulatorBundleID && $0.isOnScreen }
        let named = simulators.filter { ($0.title ?? "").contains(name) }
        let exact = named.filter { ($0.title ?? "").contains(runtime) }
        let candidates = exact.isEmpty ? named : exact
        guard let window = candidates.first else {
            let titles = simulators.compactMap(\.title).joined(separator: ", ")
            throw HelperError(code: "NO_WINDOW", message: "no on-screen Simulator window is titled with \"\(name)\" (Simulator windows: \(titles.isEmpty ? "none" : titles))", hint: "open the simulator in Simulator.app (`open -a Simulator --args -CurrentDeviceUDID <udid>`) and keep its window visible, not minimised", fatal: true)
        }
        guard candidates.count == 1 else {
            throw HelperError(code: "AMBIGUOUS_WINDOW", message: "\(candidates.count) Simulator windows are titled with \"\(name)\"", hint: "give the simulators distinct names (`xcrun simctl rename <udid> <name>`)", fatal: true)
        }
        // With device bezels hidden, the window is a title bar above the screen, and the screen
        // fills the window's width at the device's own aspect ratio.
        let frame = window.frame
        let screenHeight = frame.width * number("heightPx") / number("widthPx")
        let titleBar = frame.height - screenHeight
        guard titleBar >= 0, titleBar <= 120 else {
            throw HelperError(code: "WINDOW_SHAPE", message: "the window (\(Int(frame.width))×\(Int(frame.height)) pt) is not a title bar above a \(Int(number("widthPx")))×\(Int(number("heightPx"))) screen", hint: "in Simulator.app turn off Window > Show Device Bezels", fatal: true)
        }
        let config = SCStreamConfiguration()
        // Assumed relative to the window for a desktop-independent-window filter (see README.md).
        config.sourceRect = CGRect(x: 0, y: titleBar, width: frame.width, height: screenHeight)
        // One pixel per point: enough to see change; full resolution is `simctl io screenshot`'s job.
        config.width = Int(number("widthPt").rounded())
        config.height = Int(number("heightPt").rounded())
        config.pixelFormat = kCVPixelFormatType_32BGRA
        config.showsCursor = false
        config.minimumFrameInterval = CMTime(value: 1, timescale: 30)
        config.queueDepth = 5
        let stream = SCStream(filter: SCContentFilter(desktopIndependentWindow: window), configuration: config, delegate: self)
        do {
            try stream.addStreamOutput(self, type: .screen, sampleHandlerQueue: samples)
            try await stream.startCapture()
        } catch {
            throw HelperError(code: "CAPTURE_FAILED", message: "ScreenCaptureKit would not start: \(error.localizedDescription)", hint: "check Screen Recording permission and that the window is still open", fatal: true)
        }
        self.stream = stream
        return ["window": window.title ?? name, "widthPx": config.width, "heightPx": config.height, "pixelsPerPoint": 1]
    }

    func stream(_ stream: SCStream, didOutputSampleBuffer sampleBuffer: CMSampleBuffer, of type: SCStreamOutputType) {
        guard type == .screen, sampleBuffer.isValid,
              let attachments = (CMSampleBufferGetSampleAttachmentsArray(sampleBuffer, createIfNecessary: false) as? [[SCStreamFrameInfo: Any]])?.first,
              let rawStatus = attachments[SCStreamFrameInfo.status] as? Int,
              let status = SCFrameStatus(rawValue: rawStatus)
        else { return }
        if status == .idle {
            idle += 1
            return
        }
        guard status == .complete, let pixels = sampleBuffer.imageBuffer else { return }
        // Holding one buffer of the queue (depth 5) is what lets a snapshot answer without waiting.
        latest = pixels
        let width = CVPixelBufferGetWidth(pixels)
        let height = CVPixelBufferGetHeight(pixels)
        if !sentInitial {
            sentInitial = true
            emit(pixels, reason: "initial", damage: [[0, 0, Double(width), Double(height)]], id: nil)
            return
        }
        let damage = dirtyRects(attachments, width: width, height: height)
        if !damage.isEmpty { emit(pixels, reason: "change", damage: damage, id: nil) }
    }

    func stream(_ stream: SCStream, didStopWithError error: Error) {
        out.send("error", ["code": "CAPTURE_FAILED", "message": "ScreenCaptureKit stopped the stream: \(error.localizedDescription)", "hint": "the Simulator window may have closed; the worker polls screenshots instead", "fatal": true])
        out.flush()
        exit(3)
    }

    func snapshot(id: Int) {
        samples.async {
            guard let pixels = self.latest else {
                self.out.send("error", ["code": "NO_FRAME_YET", "message": "no frame has been captured yet", "hint": "ask again in a moment", "fatal": false, "id": id])
                return
            }
            let full = [[0, 0, Double(CVPixelBufferGetWidth(pixels)), Double(CVPixelBufferGetHeight(pixels))]]
            self.emit(pixels, reason: "snapshot", damage: full, id: id)
        }
    }

    func stats() {
        samples.async {
            let sorted = self.encodeTimes.sorted()
            let median: Any = sorted.isEmpty ? NSNull() : sorted[sorted.count / 2]
            self.out.send("stats", ["frames": self.sent, "idle": self.idle, "dropped": self.out.dropped, "medianEncodeMs": median])
        }
    }

    /// SCStreamFrameInfo.dirtyRects: CGRects in pixels, as NSValues (the header) or CGRect
    /// dictionaries; both are read, clipped to the frame.
    private func dirtyRects(_ attachments: [SCStreamFrameInfo: Any], width: Int, height: Int) -> [[Double]] {
        guard let raw = attachments[SCStreamFrameInfo.dirtyRects] as? [Any] else { return [] }
        let bounds = CGRect(x: 0, y: 0, width: width, height: height)
        return raw.compactMap { item -> CGRect? in
            if let value = item as? NSValue { return value.rectValue }
            if let dict = item as? NSDictionary { return CGRect(dictionaryRepresentation: dict as CFDictionary) }
            return nil
        }
        .map { $0.intersection(bounds) }
        .filter { !$0.isNull && !$0.isEmpty }
        .map { [Double($0.origin.x), Double($0.origin.y), Double($0.width), Double($0.height)] }
    }

    private func emit(_ pixels: CVPixelBuffer, reason: String, damage: [[Double]], id: Int?) {
        let started = CFAbsoluteTimeGetCurrent()
        guard let jpeg = encode(pixels) else {
            out.send("error", ["code": "ENCODE_FAILED", "message": "a frame could not be encoded as JPEG", "hint": "it is skipped", "fatal": false])
            return
        }
        let ms = (CFAbsoluteTimeGetCurrent() - started) * 1000
        encodeTimes.append(ms)
        if encodeTimes.count > 50 { encodeTimes.removeFirst() }
        seq += 1
        var header: [String: Any] = ["seq": seq, "format": "jpeg", "width": CVPixelBufferGetWidth(pixels), "height": CVPixelBufferGetHeight(pixels), "damage": damage, "reason": reason, "encodeMs": (ms * 10).rounded() / 10]
        if let id {
            header["id"] = id
            out.send("frame", header, payload: jpeg)
        } else {
            sent += 1
            out.sendChangeFrame(header, jpeg)
        }
    }

    private func encode(_ pixels: CVPixelBuffer) -> Data? {
        let image = CIImage(cvPixelBuffer: pixels)
        guard let cgImage = ciContext.createCGImage(image, from: image.extent) else { return nil }
        let data = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(data as CFMutableData, UTType.jpeg.identifier as CFString, 1, nil) else { return nil }
        CGImageDestinationAddImage(destination, cgImage, [kCGImageDestinationLossyCompressionQuality: 0.7] as CFDictionary)
        guard CGImageDestinationFinalize(destination) else { return nil }
        return data as Data
    }
}

