// jQuery WeUI 1.2.1 demos. A dialog ($.alert, $.confirm, $.prompt, $.login, $.modal) is a
// `.weui-dialog` with class `weui-dialog--visible` while it is up; an action sheet is
// `.weui-actionsheet_toggle`; a popup is its container with `weui-popup__container--visible`; the
// select and picker widgets open a `.weui-picker-modal` (visible with `weui-picker-modal-visible`) and
// write the choice into their input; a tab is current when its panel has `weui-tab__bd-item--active`.
import type { FieldTask } from '../tasks.js';
import { sawShown, watchShown } from './watch.js';

const dialogs = `[...document.querySelectorAll('.weui-dialog.weui-dialog--visible')]`;
const dialogTitle = `${dialogs}.map((d) => d.querySelector('.weui-dialog__title')?.textContent.trim()).join('|')`;
const sheetOpen = `!!document.querySelector('.weui-actionsheet.weui-actionsheet_toggle')`;
const pickerOpen = `[...document.querySelectorAll('.weui-picker-modal')].some((m) => m.classList.contains('weui-picker-modal-visible'))`;
const val = (sel: string) => `document.querySelector(${JSON.stringify(sel)})?.value`;
const onPage = (file: string) => `location.pathname.endsWith('/${file}')`;
/** A swipeout row is open while its body is translated left. */
const swiped = (sel: string) => `/translate3d\\(-/.test(document.querySelector('${sel} .weui-cell__bd')?.style.transform ?? '')`;
const swipedRows = `[...document.querySelectorAll('.weui-cell_swiped')].filter((c) => /translate3d\\(-/.test(c.querySelector('.weui-cell__bd')?.style.transform ?? ''))`;
const activePanel = `document.querySelector('.weui-tab__bd-item--active')?.id`;

export const JQWEUI_TASKS: FieldTask[] = [
  {
    app: 'jqweui-index',
    name: 'open demos from the index and come back',
    steps: [
      { act: { action: 'tap', target: 'Form' }, done: onPage('form.html') },
      { act: { action: 'back' }, done: onPage('index.html') },
      { act: { action: 'tap', target: 'Dialog' }, done: onPage('dialog.html') },
      { act: { action: 'back' }, done: onPage('index.html') },
      {
        act: { action: 'scroll', to: 'Swipeout' },
        done: `(() => { const r = [...document.querySelectorAll('a')].find((a) => a.textContent.trim() === 'Swipeout').getBoundingClientRect(); return r.top + r.height / 2 > 0 && r.top + r.height / 2 < innerHeight; })()`,
      },
      { act: { action: 'scroll', direction: 'down' }, probe: 'scrollY', done: 'scrollY > before' },
      { act: { action: 'tap', target: 'Swipeout' }, done: onPage('swipeout.html') },
      { act: { action: 'back' }, done: onPage('index.html') },
    ],
  },
  {
    app: 'jqweui-form',
    name: 'fill in the form: radio, checkbox, fields, switch, text, select, agree, submit',
    steps: [
      {
        act: { action: 'tap', target: 'cell standard', role: 'radio', index: 0 },
        done: `document.querySelector('#x11').checked && !document.querySelector('#x12').checked`,
      },
      {
        act: { action: 'tap', target: 'standard is dealicient for u.' },
        done: `document.querySelector('#s12').checked && document.querySelector('#s11').checked`,
      },
      { act: { action: 'tap', target: 'standard is dealt for u.' }, done: `!document.querySelector('#s11').checked` },
      { act: { action: 'type', target: 'qq', text: '12345678' }, done: `${val('input[placeholder="请输入qq号"]')} === '12345678'` },
      { act: { action: 'type', target: '手机号', text: '13800138000' }, done: `${val('input[placeholder="请输入手机号"]')} === '13800138000'` },
      { act: { action: 'type', target: '验证码', role: 'textfield', text: '123456' }, done: `${val('input[placeholder="请输入验证码"]')} === '123456'` },
      {
        act: { action: 'scroll', direction: 'down' },
        probe: 'scrollY + document.querySelector(".page, body").scrollTop',
        done: 'scrollY + document.querySelector(".page, body").scrollTop > before',
      },
      // The switches are in the outline as unnamed check boxes beside their row's text.
      { act: { action: 'tap', target: '' }, pick: { role: 'checkbox', near: '标题文字' }, done: `document.querySelector('input.weui-switch').checked` },
      { act: { action: 'tap', target: '' }, pick: { role: 'checkbox', near: '兼容IE Edge的版本' }, done: `!document.querySelector('#switchCP').checked` },
      {
        act: { action: 'type', target: '请输入文本', role: 'textfield', index: 0, text: 'hello weui' },
        done: `${val('input[placeholder="请输入文本"]')} === 'hello weui'`,
      },
      {
        act: { action: 'type', target: '', text: 'QQ号' },
        pick: { role: 'select', near: '请输入号码' },
        done: `document.querySelector('select[name=select1]').selectedOptions[0].textContent === 'QQ号'`,
      },
      { act: { action: 'tap', target: '阅读并同意《相关条款》', or: ['阅读并同意', '相关条款'] }, done: `document.querySelector('#weuiAgree').checked` },
      {
        act: { action: 'tap', target: '确定' },
        probe: watchShown('.weui-toptips'),
        done: sawShown,
      },
    ],
  },
  {
    app: 'jqweui-form',
    page: 'dist/demos/select.html',
    name: 'pick a job and a phone from the select sheets',
    steps: [
      { act: { action: 'tap', target: '职业' }, done: pickerOpen },
      { act: { action: 'tap', target: '医生' }, done: `${val('#job')} === '医生'` },
      { act: { action: 'tap', target: '手机' }, done: pickerOpen },
      { act: { action: 'tap', target: 'iPhone 6' }, done: `/iPhone 6/.test(${val('#mobile')}) && !${pickerOpen}` },
      { act: { action: 'tap', target: '爱好' }, done: pickerOpen },
      { act: { action: 'tap', target: '打球' }, done: `document.querySelector('input[id="weui-select-id-打球"]')?.checked === true` },
      { act: { action: 'tap', target: '确定' }, done: `!${pickerOpen} && ${val('#in')} === '画画,打球,唱歌'` },
    ],
  },
  {
    app: 'jqweui-form',
    page: 'dist/demos/picker.html',
    name: 'choose in the inline picker, then in the sheet picker',
    steps: [
      // An agent's slip: this picker's rows do not take taps; its column is swiped.
      { act: { action: 'tap', target: 'iPhone 6 Plus' }, done: `${val('#inline')} === 'iPhone 6 Plus'`, probeOnly: true },
      { act: { action: 'swipe', target: 'iPhone 5', direction: 'up' }, probe: val('#inline'), done: `${val('#inline')} !== before` },
      { act: { action: 'tap', target: '手机' }, done: pickerOpen },
      {
        act: { action: 'swipe', target: 'iPhone 4', direction: 'up' },
        probe: val('#mobile'),
        done: `${val('#mobile')} !== before && !!${val('#mobile')}`,
      },
      { act: { action: 'tap', target: '完成' }, done: `!${pickerOpen} && !!${val('#mobile')}` },
    ],
  },
  {
    app: 'jqweui-tabbar',
    name: 'switch the tab bar tabs',
    steps: [
      { act: { action: 'tap', target: '通讯录' }, done: `${activePanel} === 'tab2'` },
      { act: { action: 'tap', target: '发现' }, done: `${activePanel} === 'tab3'` },
      { act: { action: 'tap', target: '我' }, done: `${activePanel} === 'tab4'` },
      { act: { action: 'tap', target: '8 微信' }, done: `${activePanel} === 'tab1'` },
      // An agent's slip: the page's heading is plain text.
      { act: { action: 'tap', target: '页面一' }, probe: activePanel, done: `${activePanel} !== before`, probeOnly: true },
    ],
  },
  {
    app: 'jqweui-tabbar',
    page: 'dist/demos/navbar.html',
    name: 'switch the navbar tabs',
    steps: [
      { act: { action: 'tap', target: '选项二' }, done: `${activePanel} === 'tab2'` },
      { act: { action: 'tap', target: '选项三' }, done: `${activePanel} === 'tab3'` },
      { act: { action: 'tap', target: '选项一' }, done: `${activePanel} === 'tab1'` },
    ],
  },
  {
    app: 'jqweui-dialogs',
    page: 'dist/demos/dialog.html',
    name: 'alert, confirm, prompt, login and a custom dialog',
    steps: [
      { act: { action: 'tap', target: '显示 Alert' }, done: `${dialogTitle} === '警告！'` },
      { act: { action: 'tap', target: '确定' }, done: `${dialogs}.length === 0` },
      { act: { action: 'tap', target: '显示 Confirm' }, done: `${dialogTitle} === '确认删除?'` },
      { act: { action: 'tap', target: '取消' }, done: `${dialogs}.length === 0` },
      { act: { action: 'tap', target: '显示 Prompt' }, done: `${dialogTitle} === '输入姓名'` },
      { act: { action: 'clear', target: '' }, pick: { role: 'textfield' }, done: `${val('#weui-prompt-input')} === ''` },
      { act: { action: 'type', target: '', text: '小明' }, pick: { role: 'textfield' }, done: `${val('#weui-prompt-input')} === '小明'` },
      { act: { action: 'tap', target: '确定' }, done: `${dialogTitle} === '角色设定成功' && ${dialogs}[0].textContent.includes('小明')` },
      { act: { action: 'tap', target: '确定' }, done: `${dialogs}.length === 0` },
      { act: { action: 'tap', target: '显示自定义对话框' }, done: `${dialogTitle} === 'Hello'` },
      { act: { action: 'tap', target: '微信支付' }, done: `${dialogs}.some((d) => d.textContent.includes('你选择了微信支付'))` },
      { act: { action: 'tap', target: '确定' }, done: `${dialogs}.length === 0` },
      { act: { action: 'tap', target: '显示登录弹窗' }, done: `${dialogTitle} === '登录'` },
      { act: { action: 'type', target: '输入用户名', text: 'weuser' }, done: `${val('#weui-prompt-username')} === 'weuser'` },
      { act: { action: 'type', target: '输入密码', text: 'secret' }, done: `${val('#weui-prompt-password')} === 'secret'` },
      { act: { action: 'tap', target: '确定' }, done: `${dialogs}.length === 0` },
    ],
  },
  {
    app: 'jqweui-dialogs',
    page: 'dist/demos/action-sheet.html',
    name: 'open the action sheet and choose 编辑',
    steps: [
      { act: { action: 'tap', target: '显示 ActionSheet' }, done: sheetOpen },
      { act: { action: 'tap', target: '编辑' }, done: `!${sheetOpen} && ${dialogs}.some((d) => d.textContent.includes('编辑'))` },
      { act: { action: 'tap', target: '确定' }, done: `${dialogs}.length === 0` },
      { act: { action: 'tap', target: '自定义背景色' }, done: sheetOpen },
      { act: { action: 'tap', target: '取消' }, done: `!${sheetOpen}` },
    ],
  },
  {
    app: 'jqweui-dialogs',
    page: 'dist/demos/popup.html',
    name: 'open and close the full-screen and bottom popups',
    steps: [
      { act: { action: 'tap', target: '显示全屏(默认)Popup' }, done: `document.querySelector('#full').classList.contains('weui-popup__container--visible')` },
      {
        act: { action: 'scroll', to: '关闭' },
        done: `(() => { const r = document.querySelector('#full .close-popup').getBoundingClientRect(); return r.top + r.height / 2 > 0 && r.top + r.height / 2 < innerHeight; })()`,
      },
      { act: { action: 'tap', target: '关闭' }, done: `!document.querySelector('#full').classList.contains('weui-popup__container--visible')` },
      { act: { action: 'tap', target: '显示底部的Popup' }, done: `document.querySelector('#half').classList.contains('weui-popup__container--visible')` },
      { act: { action: 'tap', target: '关闭' }, done: `!document.querySelector('#half').classList.contains('weui-popup__container--visible')` },
    ],
  },
  {
    app: 'jqweui-dialogs',
    page: 'dist/demos/toast.html',
    name: 'show a text toast and the loading indicator',
    steps: [
      { act: { action: 'tap', target: '显示 Toast 纯文本' }, probe: watchShown('.weui-toast.weui-toast--visible'), done: sawShown },
      { act: { action: 'tap', target: '显示 Loading' }, probe: watchShown('.weui-toast.weui-toast--visible'), done: sawShown },
    ],
  },
  {
    app: 'jqweui-swipeout',
    name: 'swipe a row open and close it, open the first from the buttons, swipe a row and delete it',
    steps: [
      { act: { action: 'swipe', target: '左滑列表', direction: 'left', index: 0 }, done: swiped('#swipe1') },
      { act: { action: 'tap', target: '关闭' }, done: `!${swiped('#swipe1')}` },
      { act: { action: 'tap', target: '打开第一个' }, done: swiped('#swipe1') },
      { act: { action: 'tap', target: '关闭第一个' }, done: `!${swiped('#swipe1')}` },
      { act: { action: 'swipe', target: '左滑列表', direction: 'left', index: 1 }, done: `${swipedRows}.length === 1 && !${swiped('#swipe1')}` },
      {
        act: { action: 'tap', target: '删除' },
        probe: `document.querySelectorAll('.weui-cell_swiped').length`,
        done: `document.querySelectorAll('.weui-cell_swiped').length === before - 1 && !!document.querySelector('#swipe1')`,
      },
    ],
  },
];
