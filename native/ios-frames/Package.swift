// swift-tools-version:5.9
// simfleet's native frame helper for iOS simulators: captures one Simulator.app window with
// ScreenCaptureKit and speaks PROTOCOL.md on stdin/stdout. macOS 13 or later (the APIs used here
// exist from 12.3; 13 is what it is written and documented for). Not built or run on Linux: see README.md.
import PackageDescription

let package = Package(
    name: "simfleet-ios-frames",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "simfleet-ios-frames", targets: ["IOSFrames"]),
    ],
    targets: [
        .executableTarget(
            name: "IOSFrames",
            path: "Sources/IOSFrames",
            linkerSettings: [
                .linkedFramework("ScreenCaptureKit"),
                .linkedFramework("CoreMedia"),
                .linkedFramework("CoreImage"),
                .linkedFramework("ImageIO"),
            ]
        ),
    ]
)
