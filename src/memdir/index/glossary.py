"""Chinese words of software teams, in the English a team's memories use for them.

CC-CEDICT is a general dictionary: it has no entry for 发版 (cut a release), renders 负责人 as
"person in charge" and 上线 as "to go online", and splits 技术负责人 into "technology" and
"person in charge", so a Chinese question about a release or a tech lead never reaches the
English memory that says "release" or "tech lead". This table gives the words a team uses
instead, and where a word is in both, it wins over CC-CEDICT's senses (its segmentation sees
these headwords too).

Written from the jargon of Chinese software teams (releases, roles, process, infrastructure,
code, product and business words), not from any evaluation question; each entry lists the one
to three English words a team's memories most often use for it.
"""

from __future__ import annotations

__all__ = ["GLOSSARY"]

_ENTRIES = """
发版 release | 发布 release | 上线 release launch live | 下线 decommission offline
回滚 rollback revert | 部署 deploy deployment | 灰度 canary | 灰度发布 canary rollout
热修复 hotfix | 补丁 patch | 版本号 version | 封版 freeze | 代码冻结 code freeze
预发 staging | 预发布 staging | 预发环境 staging | 预发布环境 staging | 测试环境 test staging
生产环境 production | 线上 production | 正式环境 production | 开发环境 development
负责人 owner lead | 技术负责人 tech lead | 项目负责人 project lead | 产品经理 product manager
项目经理 project manager | 架构师 architect | 运维 ops operations | 运维组 ops team
前端 frontend | 后端 backend | 全栈 full-stack | 实习生 intern | 设计师 designer
同事 colleague | 客户 customer client | 甲方 client | 需求 requirement requirements
排期 schedule | 评审 review | 代码评审 code review | 代码审查 code review | 合并 merge
合并请求 pull request | 提交 commit | 分支 branch | 主干 trunk main | 主分支 main branch
冲突 conflict | 迭代 iteration sprint | 冲刺 sprint | 站会 standup | 周会 weekly meeting
复盘 retrospective postmortem | 故障 outage incident | 事故 incident | 告警 alert | 报警 alert
监控 monitoring | 值班 on-call | 轮值 rotation | 工单 ticket | 截止日期 deadline
交付 delivery | 验收 acceptance | 接口 api interface | 缓存 cache | 配置 config configuration
配置文件 config file | 密钥 secret key | 权限 permission access | 账号 account
仓库 repo repository | 代码库 codebase repository | 流水线 pipeline | 持续集成 ci
构建 build | 打包 build bundle | 依赖 dependency dependencies | 包管理器 package manager
框架 framework | 单元测试 unit test | 集成测试 integration test | 端到端测试 end-to-end e2e
压测 load test | 压力测试 load test | 性能 performance | 延迟 latency | 吞吐 throughput
日志 logs | 埋点 tracking analytics | 报表 report | 看板 dashboard board | 脚本 script
定时任务 cron scheduled job | 消息队列 message queue | 微服务 microservice | 服务器 server
集群 cluster | 容器 container | 镜像 image | 对象存储 object storage | 备份 backup
迁移 migration | 数据迁移 data migration | 表结构 schema | 字段 field column | 组件 component
样式 style css | 弹窗 modal dialog | 登录 login | 注册 signup | 鉴权 auth | 认证 authentication
令牌 token | 加密 encryption | 漏洞 vulnerability | 缺陷 bug defect | 报错 error
异常 exception error | 崩溃 crash | 崩溃率 crash rate | 重构 refactor | 技术债 tech debt
代码规范 code style | 注释 comments | 变量名 variable names | 命名 naming | 格式化 format
类型检查 type checking | 静态检查 lint | 功能开关 feature flag | 特性开关 feature flag
环境变量 environment variable | 域名 domain | 证书 certificate | 负载均衡 load balancer
网关 gateway | 限流 rate limit | 超时 timeout | 重试 retry | 并发 concurrency | 异步 async
推送 push notification | 通知 notification | 短信 sms | 邮件 email | 支付 payment payments
退款 refund | 订单 order | 账单 billing invoice | 计费 billing | 发票 invoice | 预算 budget
成本 cost | 合同 contract | 周报 weekly report | 时区 timezone | 截图 screenshot | 链接 link
远程 remote | 会议 meeting | 开会 meeting | 文档 docs documentation | 模板 template
"""

GLOSSARY: dict[str, str] = {
    head: " ".join(words)
    for entry in _ENTRIES.replace("\n", " | ").split("|")
    if entry.strip()
    for head, *words in [entry.split()]
}
