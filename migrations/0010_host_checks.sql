-- 0010 host checks: what a host has and lacks for each backend (Chromium, Tesseract, adb, Xcode's
-- simctl, AXe or idb, disk, memory, ...), as its worker checked at start and said in its hello; the
-- same checks `simfleet doctor` prints on that host. NULL: the worker did not say (an older worker).
alter table hosts add column checks jsonb;
