// The apps whose misses were read while simfleet's reading was changed (the fit set). Every other
// manifest app is held out: its numbers say how simfleet does on pages nobody tuned it to, and the
// report gives both. An app moves here only when its misses are read to change simfleet, and the
// move is written in the commit that does it.
export const FIT_APPS: ReadonlySet<string> = new Set([
  'todomvc-react',
  'todomvc-vanillajs',
  'f7-app',
  'weui-example',
  'jqweui-form',
  'ionic-forms',
  'phonon-forms',
  'jqm-navbar-tabs',
  'mobile-angular-ui-demo',
  'topcoat-mobile',
  'jqm-forms',
]);
