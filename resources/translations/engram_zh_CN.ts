<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Attachments</name>
    <message>
        <source>&lt;b&gt;Not attached:&lt;/b&gt; {why}</source>
        <translation>&lt;b&gt;未附加：&lt;/b&gt;{why}</translation>
    </message>
    <message>
        <source>Attached {names}; converting…</source>
        <translation>已附加 {names}，正在转换…</translation>
    </message>
    <message>
        <source>Converting {name}: {done} of {total}</source>
        <translation>正在转换 {name}：{done} / {total}</translation>
    </message>
    <message>
        <source>Converting &lt;b&gt;{name}&lt;/b&gt; ({total} pages)…</source>
        <translation>正在转换 &lt;b&gt;{name}&lt;/b&gt;（{total} 页）…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&lt;b&gt;{name} was not converted:&lt;/b&gt; {why}</source>
        <translation>&lt;b&gt;{name} 未能转换：&lt;/b&gt;{why}</translation>
    </message>
    <message>
        <source>Engram is still starting; attach the documents again in a moment.</source>
        <translation>Engram 仍在启动；请稍后再附加这些文档。</translation>
    </message>
    <message>
        <source>Added {names} to this chat&apos;s files</source>
        <translation>已把 {names} 加入此对话的文件</translation>
    </message>
</context>
<context>
    <name>Branches</name>
    <message>
        <source>&lt;b&gt;Editing your message.&lt;/b&gt; Send it to continue the chat from there in a new version; the version shown now is kept (‹ › on the message pages between them).</source>
        <translation>&lt;b&gt;正在编辑你的消息。&lt;/b&gt;发送后，对话将从这里以新版本继续；当前显示的版本会保留（消息上的 ‹ › 可在版本之间切换）。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>Bubble</name>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Memories from earlier conversations were given to the model for this reply; click to see the exact context</source>
        <translation>生成这条回复时，模型参考了以往对话中的记忆；点击查看完整上下文</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy this message</source>
        <translation>复制这条消息</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>Show what the model saw for this reply</source>
        <translation>查看模型生成这条回复时看到的内容</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Reasoning</source>
        <translation>推理过程</translation>
    </message>
    <message>
        <source>What the model thought before it answered; it is not kept</source>
        <translation>模型回答前的思考过程；不会被保存</translation>
    </message>
    <message numerus="yes">
        <source>◆ used %n memories</source>
        <translation>
            <numerusform>◆ 参考了 %n 条记忆</numerusform>
        </translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Change this message and send it again; the chat from here on is kept as another version</source>
        <translation>修改这条消息并重新发送；从这里开始的对话会作为另一个版本保留</translation>
    </message>
    <message>
        <source>Ask again for a new reply; the earlier replies are kept</source>
        <translation>重新请求一个回复；之前的回复会保留</translation>
    </message>
</context>
<context>
    <name>ChatNames</name>
    <message>
        <source>(deleted)</source>
        <translation>（已删除）</translation>
    </message>
    <message>
        <source>d MMM yyyy</source>
        <translation>yyyy年M月d日</translation>
    </message>
    <message>
        <source>“{title}” ({day})</source>
        <translation>“{title}”（{day}）</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
</context>
<context>
    <name>ChatOptions</name>
    <message>
        <source>Memory in this chat</source>
        <translation>在此对话中使用记忆</translation>
    </message>
    <message>
        <source>Off: nothing from this chat is kept in memory and nothing is recalled into it; its messages are still saved</source>
        <translation>关闭：此对话的内容不会存入记忆，也不会向其中召回记忆；消息仍会保存</translation>
    </message>
    <message>
        <source>Instructions for this chat…</source>
        <translation>此对话的指令…</translation>
    </message>
    <message>
        <source>This chat&apos;s own model: {path}</source>
        <translation>此对话专用的模型：{path}</translation>
    </message>
    <message>
        <source>The chat model of Settings; click to give this chat another</source>
        <translation>设置中的对话模型；点击为此对话选择其他模型</translation>
    </message>
    <message>
        <source>Instructions for this chat: {text}</source>
        <translation>此对话的指令：{text}</translation>
    </message>
    <message>
        <source>Memory and instructions for this chat</source>
        <translation>此对话的记忆与指令</translation>
    </message>
    <message>
        <source>Memory is on for this chat</source>
        <translation>此对话的记忆已开启</translation>
    </message>
    <message>
        <source>Memory is off for this chat: nothing is kept or recalled; the messages are still saved</source>
        <translation>此对话的记忆已关闭：不存入也不召回任何记忆；消息仍会保存</translation>
    </message>
    <message>
        <source>The model of Settings ({name})</source>
        <translation>设置中的模型（{name}）</translation>
    </message>
    <message>
        <source>More models…</source>
        <translation>更多模型…</translation>
    </message>
    <message>
        <source>&lt;b&gt;The chat model did not load.&lt;/b&gt; {why}</source>
        <translation>&lt;b&gt;对话模型没有加载。&lt;/b&gt;{why}</translation>
    </message>
    <message>
        <source>Use the model of Settings</source>
        <translation>使用设置中的模型</translation>
    </message>
</context>
<context>
    <name>ChatPanel</name>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Attach…</source>
        <translation>附加…</translation>
    </message>
    <message>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <source>Send (Enter)</source>
        <translation>发送 (Enter)</translation>
    </message>
    <message>
        <source>Attach documents</source>
        <translation>附加文档</translation>
    </message>
    <message>
        <source>Documents ({kinds});;All files (*)</source>
        <translation>文档 ({kinds});;所有文件 (*)</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the reply (Esc)</source>
        <translation>停止回复 (Esc)</translation>
    </message>
    <message>
        <source>### Hello — I&apos;m Engram.

I run entirely on this computer and I remember what you tell me across chats. Everything I remember is in the **Memories** tab, where you can correct or delete it; for every reply, the **Context** tab shows exactly what I was given.</source>
        <translation>### 你好，我是 Engram。

我完全在这台电脑上运行，并会在不同对话之间记住你告诉我的事。我记住的一切都在**记忆**标签页里，你可以随时修改或删除；每条回复发给模型的确切内容，都可以在**上下文**标签页里查看。</translation>
    </message>
    <message>
        <source>Memory off</source>
        <translation>记忆已关闭</translation>
    </message>
    <message>
        <source>Nothing from this chat is kept in memory, and nothing is recalled into it; its messages are still saved</source>
        <translation>此对话的内容不会存入记忆，也不会向其中召回记忆；消息仍会保存</translation>
    </message>
    <message>
        <source>This chat</source>
        <translation>此对话</translation>
    </message>
    <message>
        <source>Attach documents to this chat (PDF, Word, slides, spreadsheets, web pages, e-books, markdown and text files); you can also drop them here</source>
        <translation>为此对话附加文档（PDF、Word、幻灯片、电子表格、网页、电子书、Markdown 和文本文件）；也可以直接拖放到这里</translation>
    </message>
    <message>
        <source>Enter to send · Shift+Enter for a new line · Esc to stop · Ctrl+N new chat · F1 all shortcuts</source>
        <translation>Enter 发送 · Shift+Enter 换行 · Esc 停止 · Ctrl+N 新对话 · F1 全部快捷键</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <source>Message Engram…  (Enter sends, Shift+Enter for a new line)</source>
        <translation>给 Engram 发消息…（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <source>That paste is {incoming:,} characters; a message can hold at most {limit:,}. Nothing was inserted and your clipboard still has it — save long material as a file in the session&apos;s folder (Files tab) instead.</source>
        <translation>粘贴的内容有 {incoming:,} 个字符，而一条消息最多 {limit:,} 个字符。没有插入任何内容，剪贴板里的内容仍在。较长的资料请改为保存成对话文件夹中的文件（文件标签页）。</translation>
    </message>
</context>
<context>
    <name>ContextTab</name>
    <message>
        <source>&lt;p style=&apos;color:gray&apos;&gt;Select a reply (its &lt;b&gt;Context&lt;/b&gt; button, or the ◆ memories badge) to see exactly what the model was given: the system prompt, your preferences, the session summary, the recent messages, the recalled memories with their scores and your message — with the tokens of each part and how long each step took.&lt;/p&gt;</source>
        <translation>&lt;p style=&apos;color:gray&apos;&gt;选择一条回复（点它的&lt;b&gt;上下文&lt;/b&gt;按钮或 ◆ 记忆标记），即可查看模型收到的确切内容：系统提示词、你的偏好、对话摘要、最近的消息、召回的记忆及其得分，以及你的消息；还有每部分的 token 数和每一步的耗时。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>embedding your message</source>
        <translation>嵌入你的消息</translation>
    </message>
    <message>
        <source>searching memories</source>
        <translation>搜索记忆</translation>
    </message>
    <message>
        <source>reranking memories</source>
        <translation>重排记忆</translation>
    </message>
    <message>
        <source>building the context</source>
        <translation>构建上下文</translation>
    </message>
    <message>
        <source>reading the prompt</source>
        <translation>读取提示词</translation>
    </message>
    <message>
        <source>writing the reply</source>
        <translation>生成回复</translation>
    </message>
    <message>
        <source>first token after</source>
        <translation>首个 token 用时</translation>
    </message>
    <message>
        <source>whole turn</source>
        <translation>整轮用时</translation>
    </message>
    <message>
        <source>speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <source>prompt tokens reused</source>
        <translation>复用的提示词 token</translation>
    </message>
    <message>
        <source>model calls</source>
        <translation>模型调用次数</translation>
    </message>
    <message>
        <source>your message</source>
        <translation>你的消息</translation>
    </message>
    <message>
        <source>context in all</source>
        <translation>上下文合计</translation>
    </message>
    <message>
        <source>context budget</source>
        <translation>上下文预算</translation>
    </message>
    <message>
        <source>prompt (as the model counted it)</source>
        <translation>提示词（按模型计数）</translation>
    </message>
    <message>
        <source>reply</source>
        <translation>回复</translation>
    </message>
    <message>
        <source>reasoning</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>system</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>preferences</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>profile</source>
        <translation>个人资料</translation>
    </message>
    <message>
        <source>files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>window</source>
        <translation>最近消息</translation>
    </message>
    <message>
        <source>recalled</source>
        <translation>召回的记忆</translation>
    </message>
    <message>
        <source>passages from this chat&apos;s files</source>
        <translation>本次对话文件中的段落</translation>
    </message>
    <message>
        <source>assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>tool</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>user</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>before the reply</source>
        <translation>回复前自动召回</translation>
    </message>
    <message>
        <source>the model&apos;s search</source>
        <translation>模型主动搜索</translation>
    </message>
    <message>
        <source>this chat&apos;s files</source>
        <translation>本次对话的文件</translation>
    </message>
    <message>
        <source>before every reply</source>
        <translation>每次回复前</translation>
    </message>
    <message>
        <source>when the model asks</source>
        <translation>模型需要时</translation>
    </message>
    <message>
        <source>before every reply and when the model asks</source>
        <translation>每次回复前及模型需要时</translation>
    </message>
    <message>
        <source>only when you ask about the past</source>
        <translation>仅在你问起过去时</translation>
    </message>
    <message>
        <source>{speed} tokens/s</source>
        <translation>{speed} token/秒</translation>
    </message>
    <message>
        <source>Left out to fit the budget: {parts}</source>
        <translation>为不超出预算而省略：{parts}</translation>
    </message>
    <message>
        <source>Searched only when the model asks (memory search: {mode}).</source>
        <translation>仅在模型需要时搜索（记忆搜索：{mode}）。</translation>
    </message>
    <message>
        <source>Not searched: no trigger word, and not a question about you (memory search: {mode}).</source>
        <translation>未搜索：没有触发词，也不是关于你的问题（记忆搜索：{mode}）。</translation>
    </message>
    <message>
        <source>up to {count} memories from similarity {threshold}</source>
        <translation>最多 {count} 条记忆，相似度不低于 {threshold}</translation>
    </message>
    <message>
        <source>Searched before the reply (memory search: {mode}): {reach}.</source>
        <translation>已在回复前搜索（记忆搜索：{mode}）：{reach}。</translation>
    </message>
    <message>
        <source>it says {words}</source>
        <translation>其中提到 {words}</translation>
    </message>
    <message>
        <source>it is a question about you</source>
        <translation>这是关于你的问题</translation>
    </message>
    <message>
        <source>Searched before the reply, wider because your message asks about the past ({signs}; memory search: {mode}): {reach}.</source>
        <translation>已在回复前搜索，且范围更广，因为你的消息问起了过去（{signs}；记忆搜索：{mode}）：{reach}。</translation>
    </message>
    <message>
        <source>line #{id}, no longer in your profile</source>
        <translation>条目 #{id}（已不在你的个人资料中）</translation>
    </message>
    <message>
        <source>Lines of your profile: {count} · {tokens} tokens</source>
        <translation>个人资料的条目：{count} · {tokens} 个 token</translation>
    </message>
    <message>
        <source>The whole profile was left out: the context had no room for it.</source>
        <translation>整份个人资料都被省略了：上下文没有空间放下它。</translation>
    </message>
    <message>
        <source>Left out to fit the profile&apos;s budget (the least important first): {lines}</source>
        <translation>为符合个人资料的预算而省略（最不重要的先省略）：{lines}</translation>
    </message>
    <message>
        <source>Not in the context: {why}</source>
        <translation>未放入上下文：{why}</translation>
    </message>
    <message>
        <source>Your message added: {lines}</source>
        <translation>你的消息添加了：{lines}</translation>
    </message>
    <message>
        <source>Nothing could be learned from your message: {why}</source>
        <translation>无法从你的消息中学习：{why}</translation>
    </message>
    <message>
        <source>From the file {path}</source>
        <translation>来自文件 {path}</translation>
    </message>
    <message>
        <source>Your profile</source>
        <translation>你的个人资料</translation>
    </message>
    <message>
        <source>Context of reply {number} of this chat</source>
        <translation>本对话第 {number} 条回复的上下文</translation>
    </message>
    <message>
        <source>Context of the reply</source>
        <translation>这条回复的上下文</translation>
    </message>
    <message>
        <source>messages sent: {sent} · memories recalled: {recalled}</source>
        <translation>发送消息：{sent} · 召回记忆：{recalled}</translation>
    </message>
    <message>
        <source>Tokens by section</source>
        <translation>各部分 token 数</translation>
    </message>
    <message>
        <source>Timings</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>Recalled memories</source>
        <translation>召回的记忆</translation>
    </message>
    <message>
        <source>The best of them were reordered by the reranker {model}.</source>
        <translation>其中最相关的几条由重排模型 {model} 重新排序。</translation>
    </message>
    <message>
        <source>chat {session}</source>
        <translation>对话 {session}</translation>
    </message>
    <message>
        <source>similarity {value}</source>
        <translation>相似度 {value}</translation>
    </message>
    <message>
        <source>score by the reranker</source>
        <translation>重排模型的分数</translation>
    </message>
    <message>
        <source>via {way}</source>
        <translation>方式：{way}</translation>
    </message>
    <message>
        <source>None: nothing from earlier chats was relevant enough.</source>
        <translation>无：以往对话中没有足够相关的内容。</translation>
    </message>
    <message>
        <source>What the model saw, in order</source>
        <translation>模型看到的内容（按顺序）</translation>
    </message>
    <message>
        <source>[tool calls: {calls}]</source>
        <translation>[工具调用：{calls}]</translation>
    </message>
    <message>
        <source>Tool calls</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <source>instructions for this chat</source>
        <translation>此对话的指令</translation>
    </message>
    <message>
        <source>Memory is off for this chat: nothing was recalled, and nothing from this chat is kept in memory (its messages are saved).</source>
        <translation>此对话的记忆已关闭：没有召回任何记忆，此对话的内容也不会存入记忆（消息会保存）。</translation>
    </message>
    <message>
        <source>Memory is off for this chat.</source>
        <translation>此对话的记忆已关闭。</translation>
    </message>
    <message>
        <source>Nothing was recalled and the profile was not given; nothing from this chat is kept in memory.</source>
        <translation>没有召回记忆，也没有提供个人资料；此对话的内容不会存入记忆。</translation>
    </message>
    <message>
        <source>Instructions for this chat:</source>
        <translation>此对话的指令：</translation>
    </message>
    <message>
        <source>This chat&apos;s own model: {name}</source>
        <translation>此对话专用的模型：{name}</translation>
    </message>
    <message>
        <source>This chat&apos;s own settings</source>
        <translation>此对话自己的设置</translation>
    </message>
</context>
<context>
    <name>Core</name>
    <message>
        <source>check the network, or choose a download source you can reach (Models › Download from: hf-mirror.com or ModelScope)</source>
        <translation>检查网络，或选择一个能访问的下载来源（模型 › 下载来源：hf-mirror.com 或 ModelScope）</translation>
    </message>
    <message>
        <source>{s} s</source>
        <translation>{s} 秒</translation>
    </message>
    <message>
        <source>{m} min {s} s</source>
        <translation>{m} 分 {s} 秒</translation>
    </message>
    <message>
        <source>{h} h {m} min</source>
        <translation>{h} 小时 {m} 分</translation>
    </message>
    <message>
        <source>cannot reach {host}: {why}</source>
        <translation>无法连接 {host}：{why}</translation>
    </message>
    <message>
        <source>the download of {file} failed {count} times in a row ({why}); {kept:,} bytes are kept</source>
        <translation>{file} 的下载连续失败 {count} 次（{why}）；已保留 {kept:,} 字节</translation>
    </message>
    <message>
        <source>run the download again to resume from there</source>
        <translation>再次下载即可从那里继续</translation>
    </message>
    <message>
        <source>{file} is being downloaded already (by another Engram window or command)</source>
        <translation>{file} 已在下载中（由另一个 Engram 窗口或命令）</translation>
    </message>
    <message>
        <source>wait for that download to end, or pause it there and download here</source>
        <translation>等那次下载结束，或在那里暂停后在这里下载</translation>
    </message>
    <message>
        <source>{file} is not at {url} (HTTP {status})</source>
        <translation>{url} 上没有 {file}（HTTP {status}）</translation>
    </message>
    <message>
        <source>this source may not carry it: choose another download source (Models › Download from), or fix the catalog entry</source>
        <translation>这个来源可能没有它：换一个下载来源（模型 › 下载来源），或修正目录条目</translation>
    </message>
    <message>
        <source>the server refused {url} (HTTP {status})</source>
        <translation>服务器拒绝了 {url}（HTTP {status}）</translation>
    </message>
    <message>
        <source>the model may need a login or a licence accepted on its page; download it there and choose the .gguf in Settings</source>
        <translation>这个模型可能需要登录或在其页面上接受许可；请在那里下载，再在设置中选择该 .gguf</translation>
    </message>
    <message>
        <source>the server answered HTTP {status} for {url}</source>
        <translation>服务器对 {url} 返回 HTTP {status}</translation>
    </message>
    <message>
        <source>try again later, or choose another download source (Models › Download from)</source>
        <translation>稍后再试，或换一个下载来源（模型 › 下载来源）</translation>
    </message>
    <message>
        <source>no sha256 is known for {file}, so it could not be checked; nothing was downloaded</source>
        <translation>{file} 没有已知的 sha256，无法校验；什么也没有下载</translation>
    </message>
    <message>
        <source>add its sha256 to a catalog of your own (setting model_catalog), or accept an unchecked file: engram models download --unverified</source>
        <translation>把它的 sha256 写进你自己的目录（设置 model_catalog），或接受未校验的文件：engram models download --unverified</translation>
    </message>
    <message>
        <source>{url} offers {total:,} bytes, but {file} has {size:,}; nothing more was downloaded</source>
        <translation>{url} 提供 {total:,} 字节，但 {file} 应为 {size:,} 字节；没有再下载</translation>
    </message>
    <message>
        <source>the file changed upstream or this source serves another one: choose another download source (Models › Download from), or fix the catalog entry</source>
        <translation>文件在上游已改变，或这个来源提供的是另一个文件：换一个下载来源（模型 › 下载来源），或修正目录条目</translation>
    </message>
    <message>
        <source>{file} needs {need:.2f} GiB of disk but only {free:.2f} GiB is free in {folder}; nothing more was downloaded (what arrived before is kept)</source>
        <translation>{file} 需要 {need:.2f} GiB 磁盘空间，但 {folder} 只剩 {free:.2f} GiB；没有再下载（之前下载的部分已保留）</translation>
    </message>
    <message>
        <source>{file} needs {need:.2f} GiB of disk but only {free:.2f} GiB is free in {folder}; nothing was downloaded</source>
        <translation>{file} 需要 {need:.2f} GiB 磁盘空间，但 {folder} 只剩 {free:.2f} GiB；什么也没有下载</translation>
    </message>
    <message>
        <source>free some space, or set ENGRAM_MODELS_DIR to a folder on a larger disk</source>
        <translation>腾出一些空间，或把 ENGRAM_MODELS_DIR 设为更大磁盘上的文件夹</translation>
    </message>
    <message>
        <source>cannot write {file}: {why}; {kept:,} bytes are kept</source>
        <translation>无法写入 {file}：{why}；已保留 {kept:,} 字节</translation>
    </message>
    <message>
        <source>free some disk space (or fix the folder&apos;s permissions), then download again to resume</source>
        <translation>腾出一些磁盘空间（或修正文件夹权限），然后再次下载以继续</translation>
    </message>
    <message>
        <source>{file} arrived with sha256 {actual}, not the expected {expected}; the file was deleted</source>
        <translation>{file} 下载后的 sha256 是 {actual}，不是预期的 {expected}；文件已删除</translation>
    </message>
    <message>
        <source>download it again; if this repeats, this source serves another file than the catalog names: choose another download source</source>
        <translation>再下载一次；如果再次出现，说明这个来源提供的不是目录所指的文件：请换一个下载来源</translation>
    </message>
    <message>
        <source>what {url} sent is not a GGUF model file; it was deleted</source>
        <translation>{url} 发来的不是 GGUF 模型文件；已删除</translation>
    </message>
    <message>
        <source>this source may answer with a web page: check the download source&apos;s base URL (Models › Download from)</source>
        <translation>这个来源可能返回了网页：请检查下载来源的基础 URL（模型 › 下载来源）</translation>
    </message>
    <message>
        <source>{memory} GiB of memory, {cores} CPU cores</source>
        <translation>{memory} GiB 内存，{cores} 个 CPU 核心</translation>
    </message>
    <message>
        <source>{machine}, a GPU with {memory} GiB</source>
        <translation>{machine}，一块 {memory} GiB 的 GPU</translation>
    </message>
    <message>
        <source>measured over your replies on this computer</source>
        <translation>按你在这台电脑上的回复实测</translation>
    </message>
    <message>
        <source>estimate: a GPU reading about {rate:g} GB/s of its memory ÷ {size:.1f} GB read for each token</source>
        <translation>估算：GPU 每秒约读取 {rate:g} GB 显存 ÷ 每个 token 读取 {size:.1f} GB</translation>
    </message>
    <message>
        <source>estimate: {cores} CPU cores × {rate:g} GB/s of memory bandwidth ÷ {size:.1f} GB read for each token</source>
        <translation>估算：{cores} 个 CPU 核心 × 每核 {rate:g} GB/s 内存带宽 ÷ 每个 token 读取 {size:.1f} GB</translation>
    </message>
    <message>
        <source>{basis}; on the GPU it is faster</source>
        <translation>{basis}；在 GPU 上会更快</translation>
    </message>
    <message>
        <source>no base URL is set for the custom download source</source>
        <translation>自定义下载来源还没有设置基础 URL</translation>
    </message>
    <message>
        <source>type one in Models › Download from, or choose another source</source>
        <translation>在 模型 › 下载来源 中填写一个，或选择其他来源</translation>
    </message>
    <message>
        <source>{model} is not on ModelScope</source>
        <translation>ModelScope 上没有 {model}</translation>
    </message>
    <message>
        <source>download it from hf-mirror.com or Hugging Face (Models › Download from), or choose a Qwen model</source>
        <translation>从 hf-mirror.com 或 Hugging Face 下载（模型 › 下载来源），或选择一个 Qwen 模型</translation>
    </message>
</context>
<context>
    <name>FilesTab</name>
    <message>
        <source>No chat selected</source>
        <translation>未选择对话</translation>
    </message>
    <message>
        <source>New file</source>
        <translation>新建文件</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Open this chat&apos;s folder in the system file manager</source>
        <translation>在系统文件管理器中打开这个对话的文件夹</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Description (one line: what this file is for)</source>
        <translation>描述（一行，说明这个文件的用途）</translation>
    </message>
    <message>
        <source>Select or create a markdown file</source>
        <translation>选择或新建一个 Markdown 文件</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>No file manager opened the folder. It is here:</source>
        <translation>没有文件管理器能打开这个文件夹。它在这里：</translation>
    </message>
    <message>
        <source>Copy path</source>
        <translation>复制路径</translation>
    </message>
    <message>
        <source>not indexed: {why}</source>
        <translation>未索引：{why}</translation>
    </message>
    <message>
        <source>double-click to open the original</source>
        <translation>双击打开原文件</translation>
    </message>
    <message>
        <source>&lt;b&gt;{index} could not be written:&lt;/b&gt; {why}.&lt;br&gt;Your files are untouched and still indexed; only the index file is out of date.</source>
        <translation>&lt;b&gt;无法写入 {index}：&lt;/b&gt;{why}。&lt;br&gt;你的文件完好无损，仍已建立索引；只是索引文件没有更新。</translation>
    </message>
    <message>
        <source>Try again</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>&lt;b&gt;This chat&apos;s files are on {device}.&lt;/b&gt; Open the chat there to read or change them; what they say is recalled here too.</source>
        <translation>&lt;b&gt;此对话的文件在 {device} 上。&lt;/b&gt;请在那台设备上打开此对话来查看或修改它们；这里仍能回忆起文件中的内容。</translation>
    </message>
    <message>
        <source>{name} · saved</source>
        <translation>{name} · 已保存</translation>
    </message>
    <message>
        <source>{name} · edited, not saved</source>
        <translation>{name} · 已修改，未保存</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>未保存的更改</translation>
    </message>
    <message>
        <source>Discard your unsaved changes to {name}?</source>
        <translation>放弃对 {name} 未保存的更改？</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>&lt;b&gt;{name}&lt;/b&gt; was changed on disk by another program while you were editing it here. Your edits are kept in the editor; nothing was overwritten.</source>
        <translation>你在这里编辑 &lt;b&gt;{name}&lt;/b&gt; 时，另一个程序修改了磁盘上的这个文件。你的修改仍保留在编辑器中，没有覆盖任何内容。</translation>
    </message>
    <message>
        <source>Load disk version</source>
        <translation>载入磁盘版本</translation>
    </message>
    <message>
        <source>Keep mine</source>
        <translation>保留我的版本</translation>
    </message>
    <message>
        <source>Save mine as copy</source>
        <translation>将我的版本另存为副本</translation>
    </message>
    <message>
        <source>{name} · conflict with the disk</source>
        <translation>{name} · 与磁盘上的版本冲突</translation>
    </message>
    <message>
        <source>{stem} (my copy).md</source>
        <translation>{stem}（我的副本）.md</translation>
    </message>
    <message>
        <source>File name (markdown):</source>
        <translation>文件名（Markdown）：</translation>
    </message>
    <message>
        <source>Delete file</source>
        <translation>删除文件</translation>
    </message>
    <message>
        <source>Delete {name} from this chat&apos;s folder?</source>
        <translation>从这个对话的文件夹中删除 {name}？</translation>
    </message>
    <message>
        <source>{name} · deleted on disk (save to write it back)</source>
        <translation>{name} · 已在磁盘上被删除（保存即可写回）</translation>
    </message>
    <message>
        <source>{name} · reloaded (changed on disk)</source>
        <translation>{name} · 已重新载入（磁盘上有改动）</translation>
    </message>
</context>
<context>
    <name>FirstStart</name>
    <message>
        <source>&lt;b&gt;Choose the model Engram answers with&lt;/b&gt; — the tiny demo model answers meanwhile.</source>
        <translation>&lt;b&gt;选择 Engram 用来回答的模型&lt;/b&gt;——在此期间由小型演示模型回答。</translation>
    </message>
    <message>
        <source>Finding the model that suits this computer…</source>
        <translation>正在寻找适合这台电脑的模型…</translation>
    </message>
    <message>
        <source>Download and use it</source>
        <translation>下载并使用</translation>
    </message>
    <message>
        <source>Another model…</source>
        <translation>其他模型…</translation>
    </message>
    <message>
        <source>A GGUF file I have…</source>
        <translation>我已有的 GGUF 文件…</translation>
    </message>
    <message>
        <source>Try the demo first</source>
        <translation>先试用演示模型</translation>
    </message>
    <message>
        <source>No model of the catalog fits this computer&apos;s memory; choose a GGUF file you have, or keep the demo.</source>
        <translation>目录中没有能放进这台电脑内存的模型；请选择你已有的 GGUF 文件，或继续使用演示模型。</translation>
    </message>
    <message>
        <source>uses tools (memory search, session files)</source>
        <translation>会用工具（记忆搜索、会话文件）</translation>
    </message>
    <message>
        <source>writes Chinese and English</source>
        <translation>能写中文和英文</translation>
    </message>
    <message>
        <source>about {time} to download at the {rate}/s measured here</source>
        <translation>按这里实测的 {rate}/s，下载约需 {time}</translation>
    </message>
    <message>
        <source>its download time is shown once it starts, at the rate measured then</source>
        <translation>开始下载后按实测速度显示所需时间</translation>
    </message>
    <message>
        <source>Recommended for this computer: &lt;b&gt;{model}&lt;/b&gt; ({family}, {parameters:g} B) · {strengths} · {size} · {speed} here &lt;span style=&apos;color:gray&apos;&gt;({basis})&lt;/span&gt; · {duration}.</source>
        <translation>为这台电脑推荐：&lt;b&gt;{model}&lt;/b&gt;（{family}，{parameters:g} B）· {strengths} · {size} · 在这里 {speed} &lt;span style=&apos;color:gray&apos;&gt;（{basis}）&lt;/span&gt; · {duration}。</translation>
    </message>
    <message>
        <source>English only</source>
        <translation>只会英文</translation>
    </message>
    <message>
        <source>Download and use {model}</source>
        <translation>下载并使用 {model}</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>Choose the chat model</source>
        <translation>选择聊天模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>%p% · {done} of {total} · {speed}/s from {source}</source>
        <translation>%p% · {done} / {total} · {speed}/秒，来自 {source}</translation>
    </message>
    <message>
        <source>{time} left</source>
        <translation>剩余 {time}</translation>
    </message>
    <message>
        <source>Downloaded and checked; loading it…</source>
        <translation>已下载并校验；正在加载…</translation>
    </message>
</context>
<context>
    <name>GpuLayersBox</name>
    <message>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Layers of the chat model run on the GPU this build of Engram can use (Metal, CUDA or Vulkan): auto puts there what fits its free memory, 0 keeps the model on the CPU. Without a GPU, every setting runs on the CPU.</source>
        <translation>聊天模型放到 GPU 上运行的层数（这个 Engram 版本能用的 Metal、CUDA 或 Vulkan）：自动 = 放入空闲显存装得下的层，0 = 模型留在 CPU 上。没有 GPU 时，任何设置都在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Layers of the embedding model and of the reranker run on the GPU this build of Engram can use (Metal, CUDA or Vulkan): auto puts there what fits its free memory, 0 keeps them on the CPU. A change reloads them when saved.</source>
        <translation>嵌入模型和重排模型放到 GPU 上运行的层数（这个 Engram 版本能用的 Metal、CUDA 或 Vulkan）：自动 = 放入空闲显存装得下的层，0 = 它们留在 CPU 上。保存后更改即重新加载它们。</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
</context>
<context>
    <name>InstructionsDialog</name>
    <message>
        <source>Instructions for this chat</source>
        <translation>此对话的指令</translation>
    </message>
    <message>
        <source>The model reads these in this chat only, after the system prompt of Settings. For example: “Answer as a patient maths teacher.” Leave empty for none.</source>
        <translation>模型只在此对话中读取这些指令，放在设置中的系统提示词之后。例如：“像一位耐心的数学老师那样回答。”留空表示没有。</translation>
    </message>
    <message>
        <source>{count} characters; the limit is {limit}.</source>
        <translation>共 {count} 个字符；上限为 {limit}。</translation>
    </message>
</context>
<context>
    <name>IntegrationsPage</name>
    <message>
        <source>claude_desktop_config.json (in Claude Desktop: Settings › Developer › Edit Config)</source>
        <translation>claude_desktop_config.json（在 Claude Desktop 的设置 › 开发者中点“编辑配置”）</translation>
    </message>
    <message>
        <source>.vscode/mcp.json in a workspace (or, in VS Code, the command “MCP: Open User Configuration”)</source>
        <translation>工作区中的 .vscode/mcp.json（或在 VS Code 中运行命令“MCP: Open User Configuration”）</translation>
    </message>
    <message>
        <source>~/.cursor/mcp.json (or .cursor/mcp.json in a project)</source>
        <translation>~/.cursor/mcp.json（或项目中的 .cursor/mcp.json）</translation>
    </message>
    <message>
        <source>OpenAI-compatible API</source>
        <translation>OpenAI 兼容 API</translation>
    </message>
    <message>
        <source>Run an OpenAI-compatible API on this computer while Engram is open</source>
        <translation>Engram 打开时，在本机运行 OpenAI 兼容 API</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Regenerate…</source>
        <translation>重新生成…</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>Point any OpenAI client at the address above with this key and the model “engram”: replies go through Engram&apos;s memory. Only this computer can connect.</source>
        <translation>在任意 OpenAI 客户端中填入上面的地址、此密钥和模型“engram”，回复就会经过 Engram 的记忆。只有本机可以连接。</translation>
    </message>
    <message>
        <source>MCP (Claude Desktop, VS Code, Cursor and other MCP clients)</source>
        <translation>MCP（Claude Desktop、VS Code、Cursor 及其他 MCP 客户端）</translation>
    </message>
    <message>
        <source>Read only (the client can search and read, not add or forget)</source>
        <translation>只读（客户端只能搜索和读取，不能添加或遗忘）</translation>
    </message>
    <message>
        <source>MCP client</source>
        <translation>MCP 客户端</translation>
    </message>
    <message>
        <source>Copy configuration</source>
        <translation>复制配置</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Listening on {url}</source>
        <translation>正在监听 {url}</translation>
    </message>
    <message>
        <source>Not running: {why}</source>
        <translation>未运行：{why}</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>已关闭</translation>
    </message>
    <message>
        <source>Paste into {where}; the client starts Engram&apos;s MCP server itself.</source>
        <translation>粘贴到 {where}；客户端会自行启动 Engram 的 MCP 服务器。</translation>
    </message>
    <message>
        <source>Regenerate the API key</source>
        <translation>重新生成 API 密钥</translation>
    </message>
    <message>
        <source>Programs using the current key will be refused until they are given the new one. Make a new key?</source>
        <translation>使用当前密钥的程序将被拒绝，直到为它们换上新密钥。要生成新密钥吗？</translation>
    </message>
</context>
<context>
    <name>Keyboard</name>
    <message>
        <source>Send the message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <source>A new line in the message</source>
        <translation>在消息中换行</translation>
    </message>
    <message>
        <source>Stop the reply; cancel an edit</source>
        <translation>停止回复；取消编辑</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>Search the chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <source>Go to the message box</source>
        <translation>转到输入框</translation>
    </message>
    <message>
        <source>Copy the last reply</source>
        <translation>复制最后一条回复</translation>
    </message>
    <message>
        <source>Retry: a new reply (the earlier ones are kept)</source>
        <translation>重试：生成新回复（之前的回复会保留）</translation>
    </message>
    <message>
        <source>Edit your last message</source>
        <translation>编辑你的最后一条消息</translation>
    </message>
    <message>
        <source>Show the earlier version (‹)</source>
        <translation>显示上一个版本（‹）</translation>
    </message>
    <message>
        <source>Show the later version (›)</source>
        <translation>显示下一个版本（›）</translation>
    </message>
    <message>
        <source>Choose this chat&apos;s model</source>
        <translation>选择此对话的模型</translation>
    </message>
    <message>
        <source>Memory in this chat on or off</source>
        <translation>开启或关闭此对话的记忆</translation>
    </message>
    <message>
        <source>Instructions for this chat</source>
        <translation>此对话的指令</translation>
    </message>
    <message>
        <source>Attach documents or text files</source>
        <translation>附加文档或文本文件</translation>
    </message>
    <message>
        <source>The Memories tab</source>
        <translation>“记忆”标签页</translation>
    </message>
    <message>
        <source>The Profile tab</source>
        <translation>“个人资料”标签页</translation>
    </message>
    <message>
        <source>The Files tab</source>
        <translation>“文件”标签页</translation>
    </message>
    <message>
        <source>The Context tab (of the last reply)</source>
        <translation>“上下文”标签页（最后一条回复的）</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Quit Engram (File › Quit)</source>
        <translation>退出 Engram（文件 › 退出）</translation>
    </message>
    <message>
        <source>This list of shortcuts</source>
        <translation>本快捷键列表</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Does</source>
        <translation>作用</translation>
    </message>
</context>
<context>
    <name>LineRow</name>
    <message>
        <source>Delete this line from the history</source>
        <translation>从历史中删除这一条</translation>
    </message>
    <message>
        <source>Accept</source>
        <translation>接受</translation>
    </message>
    <message>
        <source>Use this line in every chat from now on</source>
        <translation>从现在起在每次对话中使用这一条</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Drop this line; it is not used</source>
        <translation>丢弃这一条；不会使用它</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Change the words of this line</source>
        <translation>修改这一条的内容</translation>
    </message>
    <message>
        <source>Move up: more important</source>
        <translation>上移：更重要</translation>
    </message>
    <message>
        <source>Move down: less important</source>
        <translation>下移：不那么重要</translation>
    </message>
    <message>
        <source>Delete this line: Engram no longer keeps it in mind</source>
        <translation>删除这一条：Engram 不再记住它</translation>
    </message>
    <message>
        <source>until {date}</source>
        <translation>截至 {date}</translation>
    </message>
    <message>
        <source>The heading this line is under</source>
        <translation>这一条所在的标题</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>error</source>
        <translation>出错</translation>
    </message>
    <message>
        <source>Fix: {hint}</source>
        <translation>解决办法：{hint}</translation>
    </message>
    <message>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Profile</source>
        <translation>个人资料</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Import conversations…</source>
        <translation>导入对话…</translation>
    </message>
    <message>
        <source>Export everything…</source>
        <translation>导出全部…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>Copied to the clipboard</source>
        <translation>已复制到剪贴板</translation>
    </message>
    <message>
        <source>data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>&lt;b&gt;Engram could not open its data.&lt;/b&gt; {why}&lt;br&gt;Choose another data folder in Settings › Data, then restart.</source>
        <translation>&lt;b&gt;Engram 无法打开它的数据。&lt;/b&gt;{why}&lt;br&gt;请在“设置 › 数据”中选择另一个数据文件夹，然后重新启动。</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>&lt;b&gt;No search by meaning: the embedding model did not load.&lt;/b&gt; {why}&lt;br&gt;Until an embedding model loads, memories are found by their words only; nothing you write is lost, and it is embedded once one loads.</source>
        <translation>&lt;b&gt;无法按语义搜索：嵌入模型没有加载。&lt;/b&gt;{why}&lt;br&gt;在嵌入模型加载之前，只能按关键词查找记忆；你写下的内容不会丢失，模型加载后会自动补上嵌入。</translation>
    </message>
    <message>
        <source>Try again</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Loading the embedding model…</source>
        <translation>正在加载嵌入模型…</translation>
    </message>
    <message>
        <source>Embedding model loaded: memories it has not embedded yet are embedded in the background</source>
        <translation>嵌入模型已加载：尚未嵌入的记忆将在后台完成嵌入</translation>
    </message>
    <message>
        <source>&lt;b&gt;This is the tiny demo model&lt;/b&gt; (SmolLM2 135M Instruct): it answers in short English sentences, often wrongly, seldom uses what Engram recalls, writes no usable Chinese, and cannot use tools (session files) or note memories. It is bundled so that Engram works offline at once. For real answers, download a chat model such as Qwen3 4B or Llama 3.2 3B Instruct, or choose a GGUF file you have.</source>
        <translation>&lt;b&gt;这是小型演示模型&lt;/b&gt;（SmolLM2 135M Instruct）：它只用简短的英文句子回答，常常出错，很少用到 Engram 回忆起的内容，写不出可用的中文，也不会使用工具（会话文件）或记下记忆。内置它是为了让 Engram 离线即可使用。想要真正有用的回答，请下载对话模型（如 Qwen3 4B 或 Llama 3.2 3B Instruct），或选择你已有的 GGUF 文件。</translation>
    </message>
    <message>
        <source>Download a model…</source>
        <translation>下载模型…</translation>
    </message>
    <message>
        <source>Choose a GGUF model…</source>
        <translation>选择 GGUF 模型…</translation>
    </message>
    <message>
        <source>&lt;b&gt;The chat model did not load.&lt;/b&gt; {why}</source>
        <translation>&lt;b&gt;对话模型没有加载。&lt;/b&gt;{why}</translation>
    </message>
    <message>
        <source>Choose another model…</source>
        <translation>选择其他模型…</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>&lt;b&gt;The chat was deleted, but its folder of files was not moved to the trash.&lt;/b&gt; {why}</source>
        <translation>&lt;b&gt;对话已删除，但它的文件夹没能移到回收站。&lt;/b&gt;{why}</translation>
    </message>
    <message>
        <source>Chat deleted, with the memories taken from it; its files are in {folder}</source>
        <translation>对话及其产生的记忆已删除；它的文件在 {folder}</translation>
    </message>
    <message>
        <source>Chat deleted, with the memories taken from it</source>
        <translation>对话及其产生的记忆已删除</translation>
    </message>
    <message>
        <source>wait for the reply to end (or press Stop), then copy</source>
        <translation>请等回复结束（或按“停止”）后再复制</translation>
    </message>
    <message>
        <source>copying the data to the server</source>
        <translation>正在把数据复制到服务器</translation>
    </message>
    <message>
        <source>Engram is still starting; your message is still in the box.</source>
        <translation>Engram 仍在启动；你的消息还在输入框里。</translation>
    </message>
    <message>
        <source>stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>*(no reply)*</source>
        <translation>*（没有回复）*</translation>
    </message>
    <message>
        <source>**Engram could not reply.** {why}</source>
        <translation>**Engram 无法回复。**{why}</translation>
    </message>
    <message>
        <source>Your message was not sent; it is back in the input box.</source>
        <translation>你的消息没有发出，已放回输入框。</translation>
    </message>
    <message>
        <source>This reply has no context record.</source>
        <translation>这条回复没有上下文记录。</translation>
    </message>
    <message>
        <source>Engram is busy</source>
        <translation>Engram 正忙</translation>
    </message>
    <message>
        <source>wait for the reply to end (or press Stop), then move</source>
        <translation>请等回复结束（或点击“停止”）后再移动</translation>
    </message>
    <message>
        <source>moving the data folder</source>
        <translation>正在移动数据文件夹</translation>
    </message>
</context>
<context>
    <name>MemoriesTab</name>
    <message>
        <source>message</source>
        <translation>消息</translation>
    </message>
    <message>
        <source>fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>experience</source>
        <translation>经验</translation>
    </message>
    <message>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>user message</source>
        <translation>用户消息</translation>
    </message>
    <message>
        <source>assistant message</source>
        <translation>助手消息</translation>
    </message>
    <message>
        <source>{role} message</source>
        <translation>{role} 消息</translation>
    </message>
    <message>
        <source>message {numbers}</source>
        <translation>消息 {numbers}</translation>
    </message>
    <message>
        <source>the chat model</source>
        <translation>对话模型</translation>
    </message>
    <message>
        <source>noted by {model} from {messages}</source>
        <translation>由 {model} 从 {messages} 中记下</translation>
    </message>
    <message>
        <source>file {path}</source>
        <translation>文件 {path}</translation>
    </message>
    <message>
        <source>added by {client} through MCP</source>
        <translation>由 {client} 通过 MCP 添加</translation>
    </message>
    <message>
        <source>added without a source</source>
        <translation>未注明</translation>
    </message>
    <message>
        <source>All kinds</source>
        <translation>全部类型</translation>
    </message>
    <message>
        <source>All chats</source>
        <translation>全部对话</translation>
    </message>
    <message>
        <source>This chat</source>
        <translation>当前对话</translation>
    </message>
    <message>
        <source>Filter memories by text</source>
        <translation>按文字筛选记忆</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Imp.</source>
        <translation>重要性</translation>
    </message>
    <message>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <source>Select a memory to read or correct it</source>
        <translation>选择一条记忆来查看或修改</translation>
    </message>
    <message>
        <source>chat {name}</source>
        <translation>对话 {name}</translation>
    </message>
    <message>
        <source>Pinned</source>
        <translation>固定</translation>
    </message>
    <message>
        <source>Pinned memories are kept and preferred in recall</source>
        <translation>固定的记忆会一直保留，召回时优先使用</translation>
    </message>
    <message>
        <source>Go to source</source>
        <translation>转到来源</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Forget everywhere…</source>
        <translation>处处遗忘…</translation>
    </message>
    <message>
        <source>Remove these words (or the part selected) from every chat, memory, record and file that holds them</source>
        <translation>从所有包含这些文字（或所选部分）的对话、记忆、记录和文件中删除它们</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Holds sensitive details: {kinds}</source>
        <translation>含有敏感信息：{kinds}</translation>
    </message>
    <message>
        <source>The newest {limit} are shown: filter by words or kind to find others</source>
        <translation>仅显示最新的 {limit} 条：按文字或类型筛选可找到其他记忆</translation>
    </message>
    <message numerus="yes">
        <source>%n memories</source>
        <translation>
            <numerusform>%n 条记忆</numerusform>
        </translation>
    </message>
    <message>
        <source>This memory was forgotten meanwhile: what you typed is not saved.</source>
        <translation>这条记忆已在此期间被遗忘：你输入的内容没有保存。</translation>
    </message>
    <message>
        <source>This memory was forgotten.</source>
        <translation>这条记忆已被遗忘。</translation>
    </message>
    <message>
        <source>From {source} · {created}</source>
        <translation>来源：{source} · {created}</translation>
    </message>
    <message>
        <source>edited {when}</source>
        <translation>编辑于 {when}</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>Not saved: {error}</source>
        <translation>未保存：{error}</translation>
    </message>
    <message>
        <source>Forget memory</source>
        <translation>忘记这条记忆</translation>
    </message>
    <message>
        <source>Looking for every place it is stored…</source>
        <translation>正在查找所有存放它的地方…</translation>
    </message>
    <message>
        <source>It is stored nowhere.</source>
        <translation>没有任何地方存有它。</translation>
    </message>
    <message>
        <source>Looking for memories related to “{text}”…</source>
        <translation>正在查找与“{text}”相关的记忆…</translation>
    </message>
    <message numerus="yes">
        <source>%n memories related to “{text}”</source>
        <translation>
            <numerusform>与“{text}”相关的记忆 %n 条</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> %n files left as they are.</source>
        <translation>
            <numerusform> %n 个文件保持原样。</numerusform>
        </translation>
    </message>
    <message>
        <source>chat title</source>
        <translation>对话标题</translation>
    </message>
    <message>
        <source>chat folder</source>
        <translation>对话文件夹</translation>
    </message>
    <message>
        <source>turn record</source>
        <translation>轮次记录</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>memory history</source>
        <translation>记忆历史</translation>
    </message>
    <message>
        <source>background job</source>
        <translation>后台任务</translation>
    </message>
    <message>
        <source>profile line</source>
        <translation>个人资料条目</translation>
    </message>
    <message>
        <source>file name</source>
        <translation>文件名</translation>
    </message>
    <message>
        <source>trash folder</source>
        <translation>回收站文件夹</translation>
    </message>
    <message>
        <source>trash file</source>
        <translation>回收站文件</translation>
    </message>
    <message>
        <source>chat {session}</source>
        <translation>对话 {session}</translation>
    </message>
    <message>
        <source>chat {session}: folder {folder}</source>
        <translation>对话 {session}：文件夹 {folder}</translation>
    </message>
    <message>
        <source>chat {session}, message #{message}</source>
        <translation>对话 {session}，消息 #{message}</translation>
    </message>
    <message>
        <source>chat {session}, turn record #{turn}</source>
        <translation>对话 {session}，轮次记录 #{turn}</translation>
    </message>
    <message>
        <source>memory #{memory} ({kind})</source>
        <translation>记忆 #{memory}（{kind}）</translation>
    </message>
    <message>
        <source>memory #{memory}, change #{change}</source>
        <translation>记忆 #{memory}，更改 #{change}</translation>
    </message>
    <message>
        <source>background job #{job}</source>
        <translation>后台任务 #{job}</translation>
    </message>
    <message>
        <source>preference {key}</source>
        <translation>偏好 {key}</translation>
    </message>
    <message>
        <source>profile: line #{line}</source>
        <translation>个人资料：条目 #{line}</translation>
    </message>
    <message>
        <source>chat {session}: {name}</source>
        <translation>对话 {session}：{name}</translation>
    </message>
    <message>
        <source>chat {session}: file name {name}</source>
        <translation>对话 {session}：文件名 {name}</translation>
    </message>
    <message>
        <source>trash: {name}</source>
        <translation>回收站：{name}</translation>
    </message>
    <message>
        <source>trash: file name {name}</source>
        <translation>回收站：文件名 {name}</translation>
    </message>
    <message>
        <source>Forget everywhere</source>
        <translation>处处遗忘</translation>
    </message>
    <message>
        <source>Forget “{text}” in these {count} places?</source>
        <translation>要在这 {count} 处遗忘“{text}”吗？</translation>
    </message>
    <message>
        <source>Only these very words are forgotten (case aside). Words that say the same thing differently, such as a reply that paraphrased them, stay: look for them with Find related memories.</source>
        <translation>只会遗忘这几个字词本身（不分大小写）。换一种说法表达同一件事的文字，例如转述过它们的回复，会保留下来：可以用“查找相关记忆”找到它们。</translation>
    </message>
    <message>
        <source>Also change the files that hold it ({count}; you may have written them)</source>
        <translation>同时修改包含它的文件（{count} 个；可能是你写的）</translation>
    </message>
    <message>
        <source>Find related memories</source>
        <translation>查找相关记忆</translation>
    </message>
    <message>
        <source>Not forgotten: {error}</source>
        <translation>未能遗忘：{error}</translation>
    </message>
    <message>
        <source>Forgotten in {count} places.</source>
        <translation>已在 {count} 处遗忘。</translation>
    </message>
    <message>
        <source>Forget this memory for good?

“{text}”</source>
        <translation>永久忘记这条记忆？

“{text}”</translation>
    </message>
    <message>
        <source>chat version</source>
        <translation>对话版本</translation>
    </message>
    <message>
        <source>chat instructions</source>
        <translation>对话指令</translation>
    </message>
    <message>
        <source>chat {session}, version #{version} (not shown)</source>
        <translation>对话 {session}，版本 #{version}（未显示）</translation>
    </message>
    <message>
        <source>chat {session}: its instructions</source>
        <translation>对话 {session}：它的指令</translation>
    </message>
</context>
<context>
    <name>ModelPicker</name>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Use default</source>
        <translation>使用默认</translation>
    </message>
    <message>
        <source>Choose the chat model</source>
        <translation>选择对话模型</translation>
    </message>
    <message>
        <source>Choose the embedding model</source>
        <translation>选择嵌入模型</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Reading the model file…</source>
        <translation>正在读取模型文件…</translation>
    </message>
</context>
<context>
    <name>ModelsDialog</name>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Languages</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Cancel download</source>
        <translation>取消下载</translation>
    </message>
    <message>
        <source>Use</source>
        <translation>使用</translation>
    </message>
    <message>
        <source>Remove…</source>
        <translation>移除…</translation>
    </message>
    <message>
        <source>Engram&apos;s data is not open yet; try again in a moment.</source>
        <translation>Engram 的数据尚未打开，请稍后再试。</translation>
    </message>
    <message>
        <source>chat</source>
        <translation>对话</translation>
    </message>
    <message>
        <source>embedding</source>
        <translation>嵌入</translation>
    </message>
    <message>
        <source>reranker</source>
        <translation>重排模型</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>This computer: {machine}. ★ recommended for it and for you · ✓ fits · ~ fits but slow · ✗ too big; tokens a second: ≈ estimated, else measured here. Downloads come from {source} ({mirror}).</source>
        <translation>这台电脑：{machine}。★ 为这台电脑和你推荐 · ✓ 可运行 · ~ 可运行但较慢 · ✗ 太大；每秒 token 数：≈ 为估算，否则为这里实测。下载来自 {source}（{mirror}）。</translation>
    </message>
    <message>
        <source>★ recommended</source>
        <translation>★ 推荐</translation>
    </message>
    <message>
        <source>✓ fits</source>
        <translation>✓ 可运行</translation>
    </message>
    <message>
        <source>~ fits, slow</source>
        <translation>~ 可运行，较慢</translation>
    </message>
    <message>
        <source>✗ too big</source>
        <translation>✗ 太大</translation>
    </message>
    <message>
        <source>queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>paused at {percent:.0%}</source>
        <translation>已暂停于 {percent:.0%}</translation>
    </message>
    <message>
        <source>in use</source>
        <translation>使用中</translation>
    </message>
    <message>
        <source>bundled</source>
        <translation>内置</translation>
    </message>
    <message>
        <source>installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <source>paused: {size} kept</source>
        <translation>已暂停：保留 {size}</translation>
    </message>
    <message>
        <source>not in this build</source>
        <translation>此版本未内置</translation>
    </message>
    <message>
        <source>failed (see above)</source>
        <translation>失败（见上方）</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>checking the part kept from before…</source>
        <translation>正在检查之前保留的部分…</translation>
    </message>
    <message>
        <source>verifying the checksum…</source>
        <translation>正在校验校验和…</translation>
    </message>
    <message>
        <source>%p% · {done} of {total} · {speed}/s</source>
        <translation>%p% · {done} / {total} · {speed}/秒</translation>
    </message>
    <message>
        <source>{time} left</source>
        <translation>剩余 {time}</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>tokens of context</source>
        <translation>词元上下文</translation>
    </message>
    <message>
        <source>licence: {licence}</source>
        <translation>许可证：{licence}</translation>
    </message>
    <message>
        <source>Chat template: {notes}</source>
        <translation>对话模板：{notes}</translation>
    </message>
    <message>
        <source>Speed here: {speed} ({basis})</source>
        <translation>这里的速度：{speed}（{basis}）</translation>
    </message>
    <message>
        <source>Checked at download against the sha256 the server states for the file.</source>
        <translation>下载时按服务器为该文件声明的 sha256 校验。</translation>
    </message>
    <message>
        <source>Loading {name}…</source>
        <translation>正在加载 {name}…</translation>
    </message>
    <message>
        <source>Saved. Engram uses it from now on.</source>
        <translation>已保存。Engram 从现在起使用它。</translation>
    </message>
    <message>
        <source>Delete {name} from this computer?</source>
        <translation>要从本机删除 {name} 吗？</translation>
    </message>
    <message>
        <source>It is in use: Engram goes back to the default model.</source>
        <translation>它正在使用中：Engram 将改回默认模型。</translation>
    </message>
    <message>
        <source>Remove model</source>
        <translation>移除模型</translation>
    </message>
    <message>
        <source>{speed:.1f} tokens/s</source>
        <translation>{speed:.1f} token/秒</translation>
    </message>
</context>
<context>
    <name>NotedNotice</name>
    <message>
        <source>Not noted in your profile: {why}</source>
        <translation>未记入你的个人资料：{why}</translation>
    </message>
</context>
<context>
    <name>NotedRow</name>
    <message>
        <source>Accept</source>
        <translation>接受</translation>
    </message>
    <message>
        <source>Keep this in mind in every chat</source>
        <translation>在每次对话中记住这一点</translation>
    </message>
    <message>
        <source>Reject</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Drop it: Engram does not keep this in mind</source>
        <translation>丢弃：Engram 不会记住这一点</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Take this back out of your profile</source>
        <translation>把这一条从你的个人资料中撤回</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Change it in the Profile tab</source>
        <translation>在“个人资料”标签页中修改</translation>
    </message>
    <message>
        <source>&lt;b&gt;Noted:&lt;/b&gt; {text}</source>
        <translation>&lt;b&gt;已记住：&lt;/b&gt;{text}</translation>
    </message>
    <message>
        <source>&lt;b&gt;Waiting for your OK:&lt;/b&gt; {text}</source>
        <translation>&lt;b&gt;等你确认：&lt;/b&gt;{text}</translation>
    </message>
    <message>
        <source>&lt;s&gt;{text}&lt;/s&gt; (taken back)</source>
        <translation>&lt;s&gt;{text}&lt;/s&gt;（已撤回）</translation>
    </message>
    <message>
        <source>&lt;s&gt;{text}&lt;/s&gt; (not noted)</source>
        <translation>&lt;s&gt;{text}&lt;/s&gt;（未记住）</translation>
    </message>
    <message>
        <source>(instead of: {old})</source>
        <translation>（取代：{old}）</translation>
    </message>
</context>
<context>
    <name>Notice</name>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>Pager</name>
    <message>
        <source>Show the earlier version</source>
        <translation>显示上一个版本</translation>
    </message>
    <message>
        <source>Show the later version</source>
        <translation>显示下一个版本</translation>
    </message>
    <message>
        <source>Version {shown} of {count}: the chat from here on was edited or answered again; the model sees only the version shown</source>
        <translation>第 {shown} 个版本，共 {count} 个：从这里开始的对话被编辑过或重新回答过；模型只看到当前显示的版本</translation>
    </message>
</context>
<context>
    <name>PortingDialog</name>
    <message>
        <source>ChatGPT export (.zip or conversations.json)</source>
        <translation>ChatGPT 导出文件（.zip 或 conversations.json）</translation>
    </message>
    <message>
        <source>Claude export (.zip or conversations.json)</source>
        <translation>Claude 导出文件（.zip 或 conversations.json）</translation>
    </message>
    <message>
        <source>A folder of markdown files (one chat each)</source>
        <translation>存放 Markdown 文件的文件夹（每个文件一个对话）</translation>
    </message>
    <message>
        <source>An Engram export (.json)</source>
        <translation>Engram 导出文件（.json）</translation>
    </message>
    <message>
        <source>One JSON file</source>
        <translation>单个 JSON 文件</translation>
    </message>
    <message>
        <source>A folder of markdown files</source>
        <translation>存放 Markdown 文件的文件夹</translation>
    </message>
    <message>
        <source>Import conversations</source>
        <translation>导入对话</translation>
    </message>
    <message>
        <source>Export everything</source>
        <translation>导出全部</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>As</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>File or folder</source>
        <translation>文件或文件夹</translation>
    </message>
    <message>
        <source>Save to</source>
        <translation>保存到</translation>
    </message>
    <message>
        <source>Each conversation becomes a chat with its own dates, and its messages become memories. Importing the same file again adds nothing.</source>
        <translation>导入的每段对话都会成为一个保留原有日期的对话，其中的消息会成为记忆。再次导入同一文件不会重复添加。</translation>
    </message>
    <message>
        <source>Your chats with their messages and files, your memories with where each came from and its history, and your preferences.</source>
        <translation>你的对话（含消息和文件）、你的记忆（含每条的来源和历史）以及你的偏好。</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Folder of markdown files</source>
        <translation>存放 Markdown 文件的文件夹</translation>
    </message>
    <message>
        <source>Export file</source>
        <translation>导出文件</translation>
    </message>
    <message>
        <source>Exports (*.zip *.json);;All files (*)</source>
        <translation>导出文件 (*.zip *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>An empty folder for the export</source>
        <translation>用于导出的空文件夹</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Choose a file or folder first.</source>
        <translation>请先选择文件或文件夹。</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Reading… {count} conversation(s) imported</source>
        <translation>正在读取…已导入 {count} 个对话</translation>
    </message>
    <message>
        <source>Archiving into memory: {done} of {total} conversation(s)</source>
        <translation>正在归档到记忆：{done} / {total} 个对话</translation>
    </message>
    <message>
        <source>Writing chat {done} of {total}</source>
        <translation>正在写入对话 {done} / {total}</translation>
    </message>
    <message>
        <source>Archiving into memory goes on in the background (see the memory health below the chat).</source>
        <translation>归档到记忆的工作会在后台继续（可在对话下方查看记忆状态）。</translation>
    </message>
    <message>
        <source>Wrote {path}: {sessions} chat(s), {messages} message(s), {memories} memories.</source>
        <translation>已写入 {path}：{sessions} 个对话，{messages} 条消息，{memories} 条记忆。</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
</context>
<context>
    <name>ProfileTab</name>
    <message>
        <source>Health</source>
        <translation>健康</translation>
    </message>
    <message>
        <source>Who I am</source>
        <translation>关于我</translation>
    </message>
    <message>
        <source>Family and people</source>
        <translation>家人和朋友</translation>
    </message>
    <message>
        <source>Food</source>
        <translation>饮食</translation>
    </message>
    <message>
        <source>Fears and limits</source>
        <translation>害怕和不能做的</translation>
    </message>
    <message>
        <source>How to answer me</source>
        <translation>怎样回答我</translation>
    </message>
    <message>
        <source>Commitments and deadlines</source>
        <translation>约定和截止日期</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Waiting for your OK</source>
        <translation>等你确认</translation>
    </message>
    <message>
        <source>Earlier</source>
        <translation>以前</translation>
    </message>
    <message>
        <source>chat “{title}”</source>
        <translation>对话“{title}”</translation>
    </message>
    <message>
        <source>You said it in {chat}</source>
        <translation>你在{chat}中说过</translation>
    </message>
    <message>
        <source>From imported {chat}</source>
        <translation>来自导入的{chat}</translation>
    </message>
    <message>
        <source>a chat</source>
        <translation>某个对话</translation>
    </message>
    <message>
        <source>Learned by the model in {chat}</source>
        <translation>模型在{chat}中记下</translation>
    </message>
    <message>
        <source>Learned by the model</source>
        <translation>由模型记下</translation>
    </message>
    <message>
        <source>Written by hand</source>
        <translation>手动写入</translation>
    </message>
    <message>
        <source>Added by another program</source>
        <translation>由其他程序添加</translation>
    </message>
    <message>
        <source>What Engram keeps in mind about you in every chat, the most important first.</source>
        <translation>Engram 在每次对话中都会记住的关于你的内容，最重要的在前。</translation>
    </message>
    <message>
        <source>Open file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>Open your profile&apos;s markdown file in your editor</source>
        <translation>在编辑器中打开你的个人资料 Markdown 文件</translation>
    </message>
    <message>
        <source>You can edit the file by hand too: what you change there is used from your next message on, and shows here at once.</source>
        <translation>你也可以手动编辑这个文件：改动从你的下一条消息起生效，并立即显示在这里。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>&lt;b&gt;Your profile cannot be read.&lt;/b&gt; {why}</source>
        <translation>&lt;b&gt;无法读取你的个人资料。&lt;/b&gt;{why}</translation>
    </message>
    <message>
        <source>Try again</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Nothing yet. Tell Engram about yourself in a chat (“I&apos;m allergic to peanuts”, “Please keep answers short”), or open the file and write a line under a heading.</source>
        <translation>还没有内容。在对话中告诉 Engram 关于你的事（“我对花生过敏”“以后请回答得简短些”），或者打开文件，在某个标题下写一行。</translation>
    </message>
    <message>
        <source>Engram noticed these in your messages; they are not used until you accept them.</source>
        <translation>Engram 从你的消息中注意到了这些；在你接受之前不会使用。</translation>
    </message>
    <message>
        <source>What newer lines replaced: kept for the record, not used</source>
        <translation>被更新的内容取代的条目：留作记录，不再使用</translation>
    </message>
    <message>
        <source>That line is no longer in your profile.</source>
        <translation>这一条已不在你的个人资料中。</translation>
    </message>
    <message>
        <source>the line was changed in the file meanwhile; nothing was done</source>
        <translation>这一条在此期间已在文件中被修改；未做任何更改</translation>
    </message>
    <message>
        <source>see the line as it is now, and try again</source>
        <translation>查看这一条现在的内容，然后重试</translation>
    </message>
    <message>
        <source>&lt;b&gt;Not changed.&lt;/b&gt; {why}</source>
        <translation>&lt;b&gt;未更改。&lt;/b&gt;{why}</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>Engram&apos;s data is not open</source>
        <translation>Engram 的数据尚未打开</translation>
    </message>
    <message>
        <source>A line needs some words; to drop it, use ✕.</source>
        <translation>一条内容不能为空；要删除它，请点 ✕。</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>Removed: {text}</source>
        <translation>已删除：{text}</translation>
    </message>
    <message>
        <source>Back: {text}</source>
        <translation>已恢复：{text}</translation>
    </message>
    <message>
        <source>Moved.</source>
        <translation>已移动。</translation>
    </message>
    <message>
        <source>Accepted: {text}</source>
        <translation>已接受：{text}</translation>
    </message>
    <message>
        <source>Undone: {text}</source>
        <translation>已撤销：{text}</translation>
    </message>
    <message>
        <source>&lt;b&gt;The file could not be made.&lt;/b&gt; {why}</source>
        <translation>&lt;b&gt;无法创建文件。&lt;/b&gt;{why}</translation>
    </message>
    <message>
        <source>Copied.</source>
        <translation>已复制。</translation>
    </message>
    <message>
        <source>No program here opens markdown files. Your profile is the file&lt;br&gt;&lt;code&gt;{path}&lt;/code&gt;&lt;br&gt;Open it in any text editor.</source>
        <translation>这台电脑上没有能打开 Markdown 文件的程序。你的个人资料是这个文件&lt;br&gt;&lt;code&gt;{path}&lt;/code&gt;&lt;br&gt;可以用任意文本编辑器打开。</translation>
    </message>
    <message>
        <source>Copy path</source>
        <translation>复制路径</translation>
    </message>
</context>
<context>
    <name>ServerSetting</name>
    <message>
        <source>postgresql://me@server:5432/engram</source>
        <translation>postgresql://用户名@服务器:5432/数据库名</translation>
    </message>
    <message>
        <source>password</source>
        <translation>密码</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Copy my data there…</source>
        <translation>把我的数据复制过去…</translation>
    </message>
    <message>
        <source>Write the server&apos;s address as postgresql://user@host:port/database.</source>
        <translation>请按 postgresql://用户@主机:端口/数据库 的格式填写服务器地址。</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>Connected to {server}. The database is empty: your data can be copied there.</source>
        <translation>已连接到 {server}。数据库是空的：可以把你的数据复制过去。</translation>
    </message>
    <message>
        <source>Connected to {server}. It holds a copy of {source}: copying again goes on with it.</source>
        <translation>已连接到 {server}。它存有 {source} 的副本：再次复制会接着上次继续。</translation>
    </message>
    <message>
        <source>Connected to {server}. It already holds data, so Engram will not copy into it: create a new database for your copy.</source>
        <translation>已连接到 {server}。它已经存有数据，Engram 不会复制进去：请为你的副本新建一个数据库。</translation>
    </message>
    <message>
        <source>Copy all of Engram&apos;s data (chats, memories, files&apos; index, preferences) to the server?

The chat is paused while it is copied and counted. Engram keeps this data as it is.</source>
        <translation>把 Engram 的全部数据（对话、记忆、文件索引、偏好）复制到服务器吗？

复制和核对期间对话会暂停。本机的数据保持原样。</translation>
    </message>
    <message>
        <source>Copy my data to a server</source>
        <translation>把我的数据复制到服务器</translation>
    </message>
    <message>
        <source>Copying…</source>
        <translation>正在复制…</translation>
    </message>
    <message>
        <source>Copied and counted: {memories} memories and everything else are on the server. Engram keeps its memory there now.</source>
        <translation>已复制并核对：{memories} 条记忆及其余全部数据都已在服务器上。Engram 现在就把记忆保存在那里。</translation>
    </message>
</context>
<context>
    <name>SessionsPanel</name>
    <message>
        <source>just now</source>
        <translation>刚刚</translation>
    </message>
    <message>
        <source>{count} min ago</source>
        <translation>{count} 分钟前</translation>
    </message>
    <message>
        <source>{count} h ago</source>
        <translation>{count} 小时前</translation>
    </message>
    <message>
        <source>{count} d ago</source>
        <translation>{count} 天前</translation>
    </message>
    <message>
        <source>＋  New chat</source>
        <translation>＋  新对话</translation>
    </message>
    <message>
        <source>Start a new chat (Ctrl+N)</source>
        <translation>开始新对话 (Ctrl+N)</translation>
    </message>
    <message>
        <source>Search chats (Ctrl+F)</source>
        <translation>搜索对话 (Ctrl+F)</translation>
    </message>
    <message>
        <source>No chats yet.</source>
        <translation>还没有对话。</translation>
    </message>
    <message>
        <source>⚙  Settings</source>
        <translation>⚙  设置</translation>
    </message>
    <message>
        <source>Models, memory, preferences, data folder (Ctrl+,)</source>
        <translation>模型、记忆、偏好、数据文件夹 (Ctrl+,)</translation>
    </message>
    <message>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <source>folder: {folder}</source>
        <translation>文件夹：{folder}</translation>
    </message>
    <message>
        <source>No chats match.</source>
        <translation>没有匹配的对话。</translation>
    </message>
    <message>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Rename chat</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <source>Title:</source>
        <translation>标题：</translation>
    </message>
    <message>
        <source>in the data folder</source>
        <translation>（位于数据文件夹中）</translation>
    </message>
    <message>
        <source>Its folder of files ({folder}) is moved to the trash folder {trash}</source>
        <translation>它的文件夹（{folder}）会被移到回收站文件夹 {trash}</translation>
    </message>
    <message>
        <source>Its folder of files is moved to the trash folder {trash}</source>
        <translation>它的文件夹会被移到回收站文件夹 {trash}</translation>
    </message>
    <message>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <source>Delete “{title}”?

Its messages, its context records and the memories taken from it are forgotten for good.

{files}, where you can still open it; delete it there to erase the files.</source>
        <translation>删除“{title}”？

它的消息、上下文记录以及从中得到的记忆都将被永久忘记。

{files}，你仍可以在那里打开它；在那里删除才会彻底清除这些文件。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Before every reply (inject)</source>
        <translation>每次回复前（注入）</translation>
    </message>
    <message>
        <source>When the model asks (tool)</source>
        <translation>模型需要时（工具）</translation>
    </message>
    <message>
        <source>Both</source>
        <translation>两者都用</translation>
    </message>
    <message>
        <source>Automatic (not with the demo model)</source>
        <translation>自动（演示模型除外）</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>brief</source>
        <translation>简短</translation>
    </message>
    <message>
        <source>normal</source>
        <translation>适中</translation>
    </message>
    <message>
        <source>detailed</source>
        <translation>详细</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Chat model</source>
        <translation>对话模型</translation>
    </message>
    <message>
        <source>one per CPU</source>
        <translation>每个 CPU 一个</translation>
    </message>
    <message>
        <source>Context size (tokens)</source>
        <translation>上下文长度（token）</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <source>Longest reply (tokens)</source>
        <translation>最长回复（token）</translation>
    </message>
    <message>
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <source>The bundled demo model (SmolLM2 135M Instruct: tiny, for trying Engram out; English only, no tools)</source>
        <translation>内置演示模型（SmolLM2 135M Instruct：很小，用于试用 Engram；仅英文，不能使用工具）</translation>
    </message>
    <message>
        <source>Only when you ask about the past</source>
        <translation>仅在你问起过去时</translation>
    </message>
    <message>
        <source>Keep them as written</source>
        <translation>按原样保留</translation>
    </message>
    <message>
        <source>Mask them before they are stored</source>
        <translation>存储前先遮盖</translation>
    </message>
    <message>
        <source>Session files and memory search as tools the model may call; small models cannot call them.</source>
        <translation>将对话文件和记忆搜索作为模型可调用的工具；小模型无法调用。</translation>
    </message>
    <message>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <source>The bundled multilingual-e5-small (Chinese, English and more)</source>
        <translation>内置的 multilingual-e5-small（中文、英文及更多语言）</translation>
    </message>
    <message>
        <source>A better chat model: pick one with “Download a model…” below, or choose a GGUF file you already have above. A new embedding model is used as soon as it is saved; your memories are then re-embedded in the background, and found by their words meanwhile.</source>
        <translation>想要更好的对话模型：用下方的“下载模型…”挑选一个，或在上方选择你已有的 GGUF 文件。新的嵌入模型保存后立即生效；你的记忆随后会在后台重新嵌入，在此期间仍可按文字找到。</translation>
    </message>
    <message>
        <source>Download a model…</source>
        <translation>下载模型…</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>After every few messages, the chat model notes facts, preferences and tasks from what you said, as memories you can see and edit.</source>
        <translation>每隔几条消息，对话模型会从你说的话中记下事实、偏好和任务，保存为你可以查看和编辑的记忆。</translation>
    </message>
    <message>
        <source>E-mail addresses, phone, ID, card, IBAN and passport-like numbers in what you write.</source>
        <translation>你所写内容中的电子邮件地址，以及电话、身份证、银行卡、IBAN 和护照之类的号码。</translation>
    </message>
    <message>
        <source>Search memories</source>
        <translation>搜索记忆</translation>
    </message>
    <message>
        <source>Trigger words</source>
        <translation>触发词</translation>
    </message>
    <message>
        <source>Max recalled memories</source>
        <translation>最多召回记忆数</translation>
    </message>
    <message>
        <source>Relevance threshold</source>
        <translation>相关度阈值</translation>
    </message>
    <message>
        <source>Window (recent messages)</source>
        <translation>窗口（最近消息数）</translation>
    </message>
    <message>
        <source>Summarise after (messages)</source>
        <translation>摘要阈值（消息数）</translation>
    </message>
    <message>
        <source>Store memories as</source>
        <translation>记忆的存储范围</translation>
    </message>
    <message>
        <source>Recall from</source>
        <translation>召回范围</translation>
    </message>
    <message>
        <source>Note facts and preferences</source>
        <translation>记下事实和偏好</translation>
    </message>
    <message>
        <source>Sensitive details</source>
        <translation>敏感信息</translation>
    </message>
    <message>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>As the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>e.g. English, 中文 (empty: any)</source>
        <translation>例如 English、中文（留空：不限）</translation>
    </message>
    <message>
        <source>e.g. friendly, formal (empty: any)</source>
        <translation>例如 友好、正式（留空：不限）</translation>
    </message>
    <message>
        <source>(any)</source>
        <translation>（不限）</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Window language</source>
        <translation>界面语言</translation>
    </message>
    <message>
        <source>The window speaks its new language when Engram starts again.</source>
        <translation>新的界面语言将在 Engram 重新启动后生效。</translation>
    </message>
    <message>
        <source>Reply in</source>
        <translation>回复语言</translation>
    </message>
    <message>
        <source>Tone</source>
        <translation>语气</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>详细程度</translation>
    </message>
    <message>
        <source>Emoji</source>
        <translation>表情符号</translation>
    </message>
    <message>
        <source>Preferences</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Move…</source>
        <translation>移动…</translation>
    </message>
    <message>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <source>Settings file</source>
        <translation>设置文件</translation>
    </message>
    <message>
        <source>Moving copies everything (database and session files), checks the copy, and only then removes the old folder. Models stay where they are.</source>
        <translation>移动时会复制全部内容（数据库和对话文件），校验副本无误后才删除旧文件夹。模型文件保持原位。</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Yours, with the chat they come from</source>
        <translation>归你所有，并记下来自哪个对话</translation>
    </message>
    <message>
        <source>Yours, with the assistant and the chat</source>
        <translation>归你所有，并记下助手和对话</translation>
    </message>
    <message>
        <source>All your chats</source>
        <translation>你的所有对话</translation>
    </message>
    <message>
        <source>Only the open chat</source>
        <translation>仅当前打开的对话</translation>
    </message>
    <message>
        <source>All your chats with this assistant</source>
        <translation>你与这个助手的所有对话</translation>
    </message>
    <message>
        <source>Off: reasoning models answer at once</source>
        <translation>关闭：推理模型直接回答</translation>
    </message>
    <message>
        <source>On: they reason first, shown folded above the reply</source>
        <translation>开启：先推理，推理过程折叠显示在回复上方</translation>
    </message>
    <message>
        <source>Automatically (each shown, with Undo)</source>
        <translation>自动（每次都会显示，可撤销）</translation>
    </message>
    <message>
        <source>Ask me first</source>
        <translation>先问我</translation>
    </message>
    <message>
        <source>Integrations</source>
        <translation>集成</translation>
    </message>
    <message>
        <source>Whether models that can think aloud (Qwen3, SmolLM3) reason before they answer; on CPUs that takes minutes. The reasoning is never stored.</source>
        <translation>会“出声思考”的模型（Qwen3、SmolLM3）是否在回答前先推理；在 CPU 上这需要数分钟。推理过程从不保存。</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>思考</translation>
    </message>
    <message>
        <source>Embedding GPU layers</source>
        <translation>嵌入模型 GPU 层数</translation>
    </message>
    <message>
        <source> days</source>
        <translation> 天</translation>
    </message>
    <message>
        <source>Among memories that match alike, newer ones come first: a memory&apos;s newness counts half after this many days.</source>
        <translation>匹配程度相近的记忆中，较新的排在前面：一条记忆过了这么多天，其新近程度只算一半。</translation>
    </message>
    <message>
        <source>What each memory is stored with: recall can then reach across chats, or stay in one.</source>
        <translation>每条记忆随什么一起保存：之后召回可以跨对话，或只在一个对话内。</translation>
    </message>
    <message>
        <source>Which memories recall looks in before a reply.</source>
        <translation>回复前召回在哪些记忆里查找。</translation>
    </message>
    <message>
        <source>What you say about yourself (“I&apos;m allergic to peanuts”, “Please keep answers short”) goes into your profile, which Engram keeps in mind in every chat. Asked first, it waits in the Profile tab for your OK.</source>
        <translation>你说的关于自己的事（“我对花生过敏”“以后请回答得简短些”）会记入你的个人资料，Engram 在每次对话中都会记住。选择“先问我”时，它会在“个人资料”标签页中等你确认。</translation>
    </message>
    <message>
        <source> tokens</source>
        <translation> 个 token</translation>
    </message>
    <message>
        <source>The profile&apos;s share of every prompt; when it is longer, its most important lines go first and the Context tab names the others.</source>
        <translation>个人资料在每次提示中所占的份额；超出时，最重要的条目优先，其余的在“上下文”标签页中列出。</translation>
    </message>
    <message>
        <source>Newer first (half-life)</source>
        <translation>新的优先（半衰期）</translation>
    </message>
    <message>
        <source>Learn about me from what I say</source>
        <translation>从我说的话中了解我</translation>
    </message>
    <message>
        <source>Profile budget</source>
        <translation>个人资料预算</translation>
    </message>
    <message>
        <source>Use a server</source>
        <translation>使用服务器</translation>
    </message>
    <message>
        <source>PostgreSQL with pgvector keeps one memory for several devices or people. Copy your data into an empty database there; Engram then uses the server from its next start. Session files stay in the data folder.</source>
        <translation>PostgreSQL（配合 pgvector）可让多台设备或多个人共用一份记忆。把你的数据复制到那里的一个空数据库中；Engram 下次启动时便开始使用服务器。会话文件仍留在数据文件夹中。</translation>
    </message>
    <message>
        <source>Engram&apos;s data is not open, so only the data folder can be changed.</source>
        <translation>Engram 的数据没有打开，因此只能更改数据文件夹。</translation>
    </message>
    <message>
        <source>The embedding model did not load: {why}. Until an embedding model loads, memories are found by their words only; nothing you write is lost, and it is embedded once one loads. Choose another one (or “Use default”) and Save.</source>
        <translation>嵌入模型没有加载：{why}。在嵌入模型加载之前，只能按关键词查找记忆；你写下的内容不会丢失，模型加载后会自动补上嵌入。请选择其他模型（或“使用默认”）并保存。</translation>
    </message>
    <message>
        <source>The chat model file cannot be used (see below); nothing was saved. Choose another file or “Use default”.</source>
        <translation>无法使用这个对话模型文件（见下方），没有保存任何设置。请选择其他文件或“使用默认”。</translation>
    </message>
    <message>
        <source>The embedding model file cannot be used (see below); nothing was saved. Choose another file or “Use default”.</source>
        <translation>无法使用这个嵌入模型文件（见下方），没有保存任何设置。请选择其他文件或“使用默认”。</translation>
    </message>
    <message>
        <source>Summarise after must be more than {count} messages.</source>
        <translation>“摘要阈值”必须大于 {count} 条消息。</translation>
    </message>
    <message>
        <source>Loading the embedding model…</source>
        <translation>正在加载嵌入模型…</translation>
    </message>
    <message>
        <source>The embedding model did not load (see below): nothing was saved or changed.</source>
        <translation>嵌入模型没有加载（见下方），没有保存或更改任何设置。</translation>
    </message>
    <message>
        <source>Not saved: {error}</source>
        <translation>未保存：{error}</translation>
    </message>
    <message>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <source>The embedding model is in use now; memories it has not embedded yet are embedded in the background (the status bar counts them) and found by their words meanwhile.</source>
        <translation>嵌入模型已启用；尚未嵌入的记忆会在后台完成嵌入（状态栏会显示数量），在此期间仍可按关键词查找。</translation>
    </message>
    <message>
        <source>Engram uses the database you named when it starts again.</source>
        <translation>Engram 再次启动时会使用你指定的数据库。</translation>
    </message>
    <message>
        <source>Restart now</source>
        <translation>立即重启</translation>
    </message>
    <message>
        <source>Move the data folder to (an empty folder)</source>
        <translation>将数据文件夹移到（一个空文件夹）</translation>
    </message>
    <message>
        <source>Move all of Engram&apos;s data from
{old}
to
{new}?

The chat is paused while the files are copied and checked.</source>
        <translation>将 Engram 的全部数据从
{old}
移到
{new}？

复制和校验文件期间，对话会暂停。</translation>
    </message>
    <message>
        <source>Move data folder</source>
        <translation>移动数据文件夹</translation>
    </message>
    <message>
        <source>Moving… (copying and checking every file)</source>
        <translation>正在移动…（逐个复制并校验文件）</translation>
    </message>
    <message>
        <source>Not moved: {why}</source>
        <translation>未移动：{why}</translation>
    </message>
    <message>
        <source>Moved. Engram now keeps its data in {folder}.</source>
        <translation>已移动。Engram 现在把数据保存在 {folder}。</translation>
    </message>
</context>
<context>
    <name>SourcePicker</name>
    <message>
        <source>Hugging Face</source>
        <translation>Hugging Face</translation>
    </message>
    <message>
        <source>hf-mirror.com (the hub&apos;s files, reachable in China)</source>
        <translation>hf-mirror.com（Hugging Face 的文件，国内可访问）</translation>
    </message>
    <message>
        <source>ModelScope (魔搭; Qwen, Llama and Gemma models)</source>
        <translation>ModelScope 魔搭（Qwen、Llama 和 Gemma 模型）</translation>
    </message>
    <message>
        <source>A base URL of my own (the hub&apos;s paths)</source>
        <translation>我自己的基础 URL（与 Hugging Face 相同的路径）</translation>
    </message>
    <message>
        <source>my own base URL</source>
        <translation>我自己的基础 URL</translation>
    </message>
    <message>
        <source>Download from</source>
        <translation>下载来源</translation>
    </message>
    <message>
        <source>https://my-mirror.example (the hub&apos;s paths)</source>
        <translation>https://my-mirror.example（与 Hugging Face 相同的路径）</translation>
    </message>
    <message>
        <source>Use {source}</source>
        <translation>改用 {source}</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>◌ Starting…</source>
        <translation>◌ 正在启动…</translation>
    </message>
    <message>
        <source>◌ Loading model…</source>
        <translation>◌ 正在加载模型…</translation>
    </message>
    <message>
        <source>● Ready</source>
        <translation>● 就绪</translation>
    </message>
    <message>
        <source>✕ Model error</source>
        <translation>✕ 模型出错</translation>
    </message>
    <message>
        <source>◉ Replying…</source>
        <translation>◉ 正在回复…</translation>
    </message>
    <message>
        <source>Generation speed of the last reply</source>
        <translation>上一条回复的生成速度</translation>
    </message>
    <message>
        <source>Tokens the model spent reasoning before the reply</source>
        <translation>模型在回复前用于推理的 token 数</translation>
    </message>
    <message>
        <source>Show errors…</source>
        <translation>查看错误…</translation>
    </message>
    <message>
        <source>Retry failed work</source>
        <translation>重试失败的任务</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>The chat model runs on: {where}</source>
        <translation>聊天模型运行在：{where}</translation>
    </message>
    <message>
        <source>{speed} tokens/s</source>
        <translation>{speed} token/秒</translation>
    </message>
    <message numerus="yes">
        <source>reasoning: %n tokens</source>
        <translation>
            <numerusform>推理：%n 个 token</numerusform>
        </translation>
    </message>
    <message>
        <source>Memory: …</source>
        <translation>记忆：…</translation>
    </message>
    <message>
        <source>stopped, see errors</source>
        <translation>已停止，请查看错误</translation>
    </message>
    <message>
        <source>files not indexed, see errors</source>
        <translation>文件未索引，请查看错误</translation>
    </message>
    <message>
        <source>search index not rebuilt, see errors</source>
        <translation>搜索索引未重建，请查看错误</translation>
    </message>
    <message>
        <source>rebuilding the search index</source>
        <translation>正在重建搜索索引</translation>
    </message>
    <message>
        <source>words only</source>
        <translation>仅关键词</translation>
    </message>
    <message>
        <source>{count} pending</source>
        <translation>{count} 项待处理</translation>
    </message>
    <message>
        <source>{count:,} to embed</source>
        <translation>{count:,} 条待嵌入</translation>
    </message>
    <message>
        <source>{count} failed</source>
        <translation>{count} 项失败</translation>
    </message>
    <message>
        <source>Memory: {state}</source>
        <translation>记忆：{state}</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>{backend} ({layers} layers)</source>
        <translation>{backend}（{layers} 层）</translation>
    </message>
    <message>
        <source>up to date</source>
        <translation>已是最新</translation>
    </message>
    <message>
        <source>Background memory work (archiving, embedding, summaries).</source>
        <translation>后台记忆任务（归档、嵌入、摘要）。</translation>
    </message>
    <message>
        <source>{count} retrying.</source>
        <translation>{count} 项正在重试。</translation>
    </message>
    <message>
        <source>No embedding model: memories are found by their words.</source>
        <translation>没有嵌入模型：只能按关键词查找记忆。</translation>
    </message>
    <message>
        <source>The search index of meaning is built again for this version; searches use the old one until it is done.</source>
        <translation>语义搜索索引正在为此版本重建；完成之前，搜索使用旧索引。</translation>
    </message>
    <message>
        <source>Background work has stopped and tries again every few seconds: {why}</source>
        <translation>后台任务已停止，每隔几秒会重试一次：{why}</translation>
    </message>
    <message>
        <source>A change to a session file could not be indexed: {why}</source>
        <translation>对话文件的一处改动未能建立索引：{why}</translation>
    </message>
    <message>
        <source>The search index of meaning could not be rebuilt for this version: {why}. Searches go on with the old one; Engram tries again at its next start.</source>
        <translation>语义搜索索引无法为此版本重建：{why}。搜索继续使用旧索引；Engram 会在下次启动时重试。</translation>
    </message>
    <message numerus="yes">
        <source>#{id} {kind} ({state}, %n attempts): {why}</source>
        <translation>
            <numerusform>#{id} {kind}（{state}，尝试 %n 次）：{why}</numerusform>
        </translation>
    </message>
    <message>
        <source>Background memory work has stopped: the database cannot record it.</source>
        <translation>后台记忆任务已停止：数据库无法记录它。</translation>
    </message>
    <message numerus="yes">
        <source>%n background jobs had errors.</source>
        <translation>
            <numerusform>%n 个后台任务出错。</numerusform>
        </translation>
    </message>
    <message>
        <source>A session file could not be indexed.</source>
        <translation>有一个对话文件未能建立索引。</translation>
    </message>
    <message>
        <source>The search index could not be rebuilt.</source>
        <translation>搜索索引无法重建。</translation>
    </message>
    <message>
        <source>Memory work errors</source>
        <translation>记忆任务错误</translation>
    </message>
</context>
<context>
    <name>TriggerWordsEdit</name>
    <message>
        <source>English (whole words)</source>
        <translation>英文（整词匹配）</translation>
    </message>
    <message>
        <source>Chinese (anywhere)</source>
        <translation>中文（任意位置匹配）</translation>
    </message>
    <message>
        <source>A message with one of these words, or a question about you (“What is my dog’s name?”), asks about the past: with “Only when you ask about the past” it is the only kind of message that searches your memories; otherwise such a message recalls more of them.</source>
        <translation>含有其中某个词的消息，或关于你的问题（如“我的狗叫什么名字？”），都算问起过去：选择“仅在你问起过去时”时，只有这类消息会搜索你的记忆；否则，这类消息会召回更多记忆。</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Default</source>
        <translation>默认</translation>
    </message>
</context>
</TS>
