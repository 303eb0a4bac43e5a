<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en">
<context>
    <name>Bubble</name>
    <message numerus="yes">
        <source>◆ used %n memories</source>
        <translation>
            <numerusform>◆ used %n memory</numerusform>
            <numerusform>◆ used %n memories</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MemoriesTab</name>
    <message numerus="yes">
        <source>%n memories</source>
        <translation>
            <numerusform>%n memory</numerusform>
            <numerusform>%n memories</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n memories related to “{text}”</source>
        <translation>
            <numerusform>%n memory related to “{text}”</numerusform>
            <numerusform>%n memories related to “{text}”</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> %n files left as they are.</source>
        <translation>
            <numerusform> %n file left as it is.</numerusform>
            <numerusform> %n files left as they are.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message numerus="yes">
        <source>reasoning: %n tokens</source>
        <translation>
            <numerusform>reasoning: %n token</numerusform>
            <numerusform>reasoning: %n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>#{id} {kind} ({state}, %n attempts): {why}</source>
        <translation>
            <numerusform>#{id} {kind} ({state}, %n attempt): {why}</numerusform>
            <numerusform>#{id} {kind} ({state}, %n attempts): {why}</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n background jobs had errors.</source>
        <translation>
            <numerusform>%n background job had errors.</numerusform>
            <numerusform>%n background jobs had errors.</numerusform>
        </translation>
    </message>
</context>
</TS>
