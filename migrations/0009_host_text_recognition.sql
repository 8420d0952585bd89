-- 0009 text recognition per host: whether the worker's text recognition engine (Tesseract) can run,
-- and how to install it when it cannot, as its hello said. Said once here (GET /v1/hosts), in the
-- start banner and the docs, rather than in every outline's header. NULL: the worker did not say
-- (an older worker, or recognition turned off with SIMFLEET_TESSERACT=none).
alter table hosts add column text_recognition jsonb;
