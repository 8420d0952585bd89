// A live screen (watchScreen): each frame is a JSON header, then the JPEG as a binary message.
// Frames are shown through blob: URLs; the previous one is revoked so a long watch does not hold
// every image it ever showed. `data-seq` (the device's frame number) and `data-frames` (frames shown)
// let a person or a test see that the picture moves.
import { stream } from './api.js';

export function liveScreen(img, sessionId, params = {}, onStatus = () => {}) {
  let header = null;
  let url = null;
  let frames = 0;
  const live = stream(`/v1/sessions/${encodeURIComponent(sessionId)}/screen/live`, {
    params,
    final: true,
    onStatus,
    onMessage(message) {
      if (!(message instanceof Blob)) {
        header = message.type === 'frame' ? message : null;
        return;
      }
      if (!header) return; // a JPEG without its header (a reconnect cut in between): skip it
      const next = URL.createObjectURL(new Blob([message], { type: 'image/jpeg' }));
      img.src = next;
      if (url) URL.revokeObjectURL(url);
      url = next;
      frames += 1;
      img.dataset.seq = String(header.seq);
      img.dataset.frames = String(frames);
      img.title = `frame ${header.seq}, ${header.width}×${header.height} at ${header.at}`;
      header = null;
    },
  });
  return {
    close() {
      live.close();
      if (url) URL.revokeObjectURL(url);
      url = null;
    },
  };
}
