#!/bin/sh
# Builds simfleet-ios-frames (release) with SwiftPM. Needs macOS 13+ and Xcode 15+ (Swift 5.9).
# The binary lands in .build/release/simfleet-ios-frames; give that path to the worker's ios
# backend as its frame helper. Not built or run on Linux, where simfleet is developed.
set -eu
cd "$(dirname "$0")"
if [ "$(uname -s)" != "Darwin" ]; then
  echo "simfleet-ios-frames uses ScreenCaptureKit and builds on macOS only (this is $(uname -s))." >&2
  echo "The worker runs without it: iOS frames then come from polled \`simctl io screenshot\`." >&2
  exit 1
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "swift was not found: install Xcode 15 or later and run \`xcode-select -s /Applications/Xcode.app\`." >&2
  exit 1
fi
swift build -c release
echo "built: $(pwd)/.build/release/simfleet-ios-frames"
echo "grant it Screen Recording (System Settings > Privacy & Security) before the worker starts it."
