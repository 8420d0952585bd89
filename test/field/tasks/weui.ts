// WeUI 2.6.26's example (hash-routed pages built from templates) and weui.js 1.2.21's example (one
// page with a navbar of four tabs). WeUI's own dialogs are `.js_dialog` wrappers shown with
// display; its action sheet is `#iosActionsheet.weui-actionsheet_toggle`; its tab bar marks the
// current tab `aria-selected="true"` and shows one `.weui-tab__panel`. weui.js builds its dialogs,
// action sheets and pickers on demand and removes them when they close.
import type { FieldTask } from '../tasks.js';
import { sawShown, watchShown } from './watch.js';

const shown = (sel: string) =>
  `[...document.querySelectorAll(${JSON.stringify(sel)})].some((e) => e.getClientRects().length > 0 && getComputedStyle(e).display !== 'none' && getComputedStyle(e).visibility !== 'hidden')`;
const hash = (h: string) => `location.hash === ${JSON.stringify(h)}`;
const lastPage = `[...document.querySelectorAll('.container > .page, .page')].pop()`;
const inPage = (sel: string) => `${lastPage}.querySelector(${JSON.stringify(sel)})`;
const tabSelected = (id: string) =>
  `document.querySelector('#${id}')?.getAttribute('aria-selected') === 'true' && getComputedStyle(document.querySelector('#${id.replace('tab', 'panel')}')).display !== 'none'`;
const navOn = (i: number) =>
  `document.querySelectorAll('.weui-navbar__item')[${i}].classList.contains('weui-bar__item_on') && getComputedStyle(document.querySelectorAll('.weui-tab__content')[${i}]).display !== 'none'`;
/** How far the shown page has scrolled (the example scrolls its last .page, or the document). */
const pageY = `(scrollY + ([...document.querySelectorAll('.page')].pop()?.scrollTop ?? 0))`;
/** Where the open weui.js picker's columns stand. */
const pickerY = `[...document.querySelectorAll('.weui-picker .weui-picker__content')].map((c) => new DOMMatrix(getComputedStyle(c).transform).m42).join()`;
const jsDialog = shown('.weui-dialog');
const jsSheet = shown('.weui-actionsheet');
const jsPicker = shown('.weui-picker');

export const WEUI_TASKS: FieldTask[] = [
  {
    app: 'weui-example',
    page: 'dist/example/index.html#form',
    name: 'check boxes, then switches, going back between form demos',
    steps: [
      { act: { action: 'tap', target: '复选框' }, done: hash('#form_checkbox') },
      { act: { action: 'tap', target: 'standard is dealicient for u.', index: 0 }, done: `${inPage('#s12')}.checked && ${inPage('#s11')}.checked` },
      { act: { action: 'tap', target: 'standard is dealt for u.' }, done: `!${inPage('#s11')}.checked` },
      // An agent's slip: the third box is disabled.
      { act: { action: 'tap', target: 'standard is dealicient for u.', index: 1 }, done: `!${inPage('#s13')}.checked`, probeOnly: true },
      { act: { action: 'back' }, done: `${hash('#form')} && !!${inPage('a[href="#form_switch"]')}` },
      { act: { action: 'tap', target: '开关' }, done: hash('#form_switch') },
      { act: { action: 'tap', target: '标题文字', index: 0 }, done: `${inPage('#cb')}.checked` },
      { act: { action: 'tap', target: '兼容IE Edge的版本' }, done: `!${inPage('#switchCP')}.checked` },
      { act: { action: 'tap', target: '确定' }, probe: watchShown('#js_toast'), done: sawShown },
      { act: { action: 'back' }, done: hash('#form') },
    ],
  },
  {
    app: 'weui-example',
    page: 'dist/example/index.html#form',
    name: 'scroll to the last form demo, open it and type',
    steps: [
      {
        act: { action: 'scroll', to: '上下结构' },
        done: `(() => { const r = ${inPage('a[href="#form_vertical"]')}.getBoundingClientRect(); return r.top + r.height / 2 > 0 && r.top + r.height / 2 < innerHeight; })()`,
      },
      { act: { action: 'tap', target: '上下结构' }, done: hash('#form_vertical') },
      { act: { action: 'back' }, done: hash('#form') },
      { act: { action: 'tap', target: '文本域' }, done: hash('#form_textarea') },
      { act: { action: 'type', target: '', text: '一段文字' }, pick: { role: 'textfield' }, done: `${inPage('textarea')}.value === '一段文字'` },
      { act: { action: 'back' }, done: hash('#form') },
    ],
  },
  {
    app: 'weui-example',
    page: 'dist/example/index.html#dialog',
    name: 'open each dialog style and dismiss it',
    steps: [
      { act: { action: 'tap', target: '样式一' }, done: shown('#iosDialog1') },
      { act: { action: 'tap', target: '主操作' }, done: `!${shown('#iosDialog1')}` },
      { act: { action: 'tap', target: '样式二' }, done: shown('#iosDialog2') },
      { act: { action: 'tap', target: '辅助操作' }, done: `!${shown('#iosDialog2')}` },
      { act: { action: 'tap', target: '样式三' }, done: shown('#iosDialog5') },
      { act: { action: 'tap', target: '辅助操作' }, done: `!${shown('#iosDialog5')}` },
    ],
  },
  {
    app: 'weui-example',
    page: 'dist/example/index.html#tabbar',
    name: 'switch through the tab bar',
    steps: [
      { act: { action: 'tap', target: '通讯录' }, done: tabSelected('tab2') },
      { act: { action: 'tap', target: '发现' }, done: tabSelected('tab3') },
      { act: { action: 'tap', target: '我' }, done: tabSelected('tab4') },
      { act: { action: 'tap', target: '微信' }, done: tabSelected('tab1') },
    ],
  },
  {
    app: 'weui-example',
    page: 'dist/example/index.html#actionsheet',
    name: 'open the action sheet, cancel, open again, choose and cancel',
    steps: [
      {
        act: { action: 'tap', target: 'ActionSheet', role: 'button' },
        done: `document.querySelector('#iosActionsheet').classList.contains('weui-actionsheet_toggle')`,
      },
      { act: { action: 'tap', target: '取消' }, done: `!document.querySelector('#iosActionsheet').classList.contains('weui-actionsheet_toggle')` },
      {
        act: { action: 'tap', target: 'ActionSheet', role: 'button' },
        done: `document.querySelector('#iosActionsheet').classList.contains('weui-actionsheet_toggle')`,
      },
      // The demo's menu items do nothing (only 取消 and the mask close the sheet): choosing one leaves it open.
      {
        act: { action: 'tap', target: '负向菜单' },
        done: `!document.querySelector('#iosActionsheet').classList.contains('weui-actionsheet_toggle')`,
        probeOnly: true,
      },
      { act: { action: 'tap', target: '取消' }, done: `!document.querySelector('#iosActionsheet').classList.contains('weui-actionsheet_toggle')` },
    ],
  },
  {
    app: 'weui-example',
    page: 'dist/example/index.html#list',
    name: 'scroll down the list and back up',
    steps: [
      { act: { action: 'scroll', direction: 'down' }, probe: pageY, done: `${pageY} > before` },
      { act: { action: 'scroll', direction: 'up' }, probe: pageY, done: `${pageY} < before` },
    ],
  },
  {
    app: 'weuijs-example',
    name: 'alert, confirm, action sheet and picker',
    steps: [
      { act: { action: 'tap', target: 'Alert' }, done: `${jsDialog} && document.querySelector('.weui-dialog__title')?.textContent === '自定义标题'` },
      { act: { action: 'tap', target: '确定' }, done: `!${jsDialog}` },
      { act: { action: 'tap', target: 'Confirm' }, done: jsDialog },
      { act: { action: 'tap', target: '取消' }, done: `!${jsDialog}` },
      { act: { action: 'tap', target: 'ActionSheet' }, done: jsSheet },
      { act: { action: 'tap', target: '从相册选择' }, done: `!${jsSheet}` },
      { act: { action: 'tap', target: 'Picker', index: 0 }, done: jsPicker },
      { act: { action: 'swipe', target: '的士票', direction: 'up' }, probe: pickerY, done: `${pickerY} !== before` },
      { act: { action: 'tap', target: 'OK' }, done: `!${jsPicker}` },
      { act: { action: 'tap', target: 'DatePicker' }, done: jsPicker },
      { act: { action: 'swipe', target: '7月', direction: 'down' }, probe: pickerY, done: `${pickerY} !== before` },
      { act: { action: 'tap', target: '确定' }, done: `!${jsPicker}` },
    ],
  },
  {
    app: 'weuijs-example',
    name: 'fill in the form tab and submit it',
    steps: [
      { act: { action: 'tap', target: '表单' }, done: navOn(1) },
      { act: { action: 'tap', target: '女' }, done: `document.querySelector('#r2').checked` },
      { act: { action: 'tap', target: '欧阳锋' }, done: `document.querySelector('#c2').checked` },
      { act: { action: 'tap', target: '洪七公' }, done: `document.querySelector('#c4').checked && document.querySelector('#c2').checked` },
      { act: { action: 'type', target: '手机号', text: '13800138000' }, done: `document.querySelector('input[type=tel]').value === '13800138000'` },
      {
        act: { action: 'type', target: '身份证号码', text: '110101199003070000' },
        done: `document.querySelector('input[placeholder=输入你的身份证号码]').value === '110101199003070000'`,
      },
      { act: { action: 'tap', target: '其它' }, done: navOn(3) },
      { act: { action: 'tap', target: '表单' }, done: navOn(1) },
      { act: { action: 'tap', target: '提交' }, probe: watchShown('.weui-toptips'), done: sawShown },
    ],
  },
];
